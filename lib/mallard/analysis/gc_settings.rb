# frozen_string_literal: true

module Mallard
  module Analysis
    # The RUBY_GC_* variables the subject ran with (read from its /proc environ at boot), and which of them its
    # Ruby does not read: a tuning that silently does nothing is worse than none, because it is believed.
    module GcSettings
      # What gc.c reads (ruby_gc_set_params) in every Ruby mallard supports, 3.1 on.
      COMMON = %w[RUBY_GC_HEAP_FREE_SLOTS RUBY_GC_HEAP_GROWTH_FACTOR RUBY_GC_HEAP_GROWTH_MAX_SLOTS
                  RUBY_GC_HEAP_FREE_SLOTS_MIN_RATIO RUBY_GC_HEAP_FREE_SLOTS_MAX_RATIO
                  RUBY_GC_HEAP_FREE_SLOTS_GOAL_RATIO RUBY_GC_HEAP_OLDOBJECT_LIMIT_FACTOR RUBY_GC_MALLOC_LIMIT
                  RUBY_GC_MALLOC_LIMIT_MAX RUBY_GC_MALLOC_LIMIT_GROWTH_FACTOR RUBY_GC_OLDMALLOC_LIMIT
                  RUBY_GC_OLDMALLOC_LIMIT_MAX RUBY_GC_OLDMALLOC_LIMIT_GROWTH_FACTOR].freeze
      # Ruby 3.3 sized each slot pool on its own and stopped reading the single initial size.
      PER_POOL = /\ARUBY_GC_HEAP_\d_INIT_SLOTS\z/
      REMEMBERED_RATIO = "RUBY_GC_HEAP_REMEMBERED_WB_UNPROTECTED_OBJECTS_LIMIT_RATIO"
      POOLED_SINCE = Gem::Version.new("3.3")

      module_function

      # @param settings [Run::GcSettings, nil]
      # @return [Array<Summary::GcSetting>]
      def call(settings)
        return [] unless settings

        version = version_of(settings.ruby_version)
        (settings.env || {}).sort.map do |name, value|
          Summary::GcSetting.new(name: name, value: value, ignored: ignored(name, version))
        end
      end

      # Why this Ruby does not read the variable; nil when it does, or when the Ruby's version is unknown.
      def ignored(name, version)
        return unless version

        pooled = version >= POOLED_SINCE
        return ignored_init_slots(version) if name == "RUBY_GC_HEAP_INIT_SLOTS" && pooled
        return if name == "RUBY_GC_HEAP_INIT_SLOTS" || COMMON.include?(name)
        return if pooled && (name.match?(PER_POOL) || name == REMEMBERED_RATIO)

        "Ruby #{version} does not read #{name}"
      end

      def ignored_init_slots(version)
        "Ruby #{version} ignores it: set the per-pool RUBY_GC_HEAP_0_INIT_SLOTS … RUBY_GC_HEAP_4_INIT_SLOTS instead"
      end

      def version_of(text)
        text && Gem::Version.new(text.to_s[/\A\d+\.\d+(\.\d+)?/] || return)
      end

      private_class_method :ignored, :ignored_init_slots, :version_of
    end
  end
end

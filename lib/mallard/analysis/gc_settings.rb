# frozen_string_literal: true

module Mallard
  module Analysis
    # The RUBY_GC_* variables the subject ran with (read from its /proc environ at boot), and which of them its
    # Ruby does not read, and why (as a word: Report::SoakSentences#gc_settings says it): a tuning that silently does
    # nothing is worse than none, because it is believed.
    #
    # The lists follow each Ruby's own reader: ruby_gc_set_params in gc.c of 3.1.2 and 3.3.8, and
    # rb_gc_impl_set_params in gc/default/default.c of 3.4.5 with ruby_modular_gc_init in its gc.c (Debian's source
    # packages). 3.2's gc.c was not at hand; it reads 3.1's list, as 3.3.0's NEWS tells: 3.3 dropped
    # RUBY_GC_HEAP_INIT_SLOTS for the per-pool variables (Feature #19785; ruby/ruby#7235 and #8335 show
    # ruby_gc_set_params before them) and added REMEMBERED_WB_UNPROTECTED_OBJECTS_LIMIT_RATIO (Feature #19571).
    module GcSettings
      # Read by every Ruby mallard supports, 3.1 on.
      COMMON = %w[RUBY_GC_HEAP_FREE_SLOTS RUBY_GC_HEAP_GROWTH_FACTOR RUBY_GC_HEAP_GROWTH_MAX_SLOTS
                  RUBY_GC_HEAP_FREE_SLOTS_MIN_RATIO RUBY_GC_HEAP_FREE_SLOTS_MAX_RATIO
                  RUBY_GC_HEAP_FREE_SLOTS_GOAL_RATIO RUBY_GC_HEAP_OLDOBJECT_LIMIT_FACTOR RUBY_GC_MALLOC_LIMIT
                  RUBY_GC_MALLOC_LIMIT_MAX RUBY_GC_MALLOC_LIMIT_GROWTH_FACTOR RUBY_GC_OLDMALLOC_LIMIT
                  RUBY_GC_OLDMALLOC_LIMIT_MAX RUBY_GC_OLDMALLOC_LIMIT_GROWTH_FACTOR].freeze
      # Read before 3.3 only: 3.3 sized each slot pool on its own (and only warns of it, under -W:deprecated).
      INIT_SLOTS = "RUBY_GC_HEAP_INIT_SLOTS"
      # From 3.3, one per pool: SIZE_POOL_COUNT (3.3) and HEAP_COUNT (3.4) are 5.
      POOLS = 5
      PER_POOL = /\ARUBY_GC_HEAP_[0-#{POOLS - 1}]_INIT_SLOTS\z/
      REMEMBERED_RATIO = "RUBY_GC_HEAP_REMEMBERED_WB_UNPROTECTED_OBJECTS_LIMIT_RATIO"
      POOLED_SINCE = Gem::Version.new("3.3")
      # From 3.4, but only by a Ruby built with modular GC, which the subject's version does not tell.
      GC_LIBRARY = "RUBY_GC_LIBRARY"
      MODULAR_SINCE = Gem::Version.new("3.4")

      module_function

      # @param settings [Run::GcSettings, nil]
      # @return [Array<Summary::GcSetting>]
      def call(settings)
        return [] unless settings

        version = version_of(settings.ruby_version)
        (settings.env || {}).sort.map do |name, value|
          unread = unread(name, version)
          Summary::GcSetting.new(name: name, value: value, unread: unread, ruby_version: (version.to_s if unread))
        end
      end

      # Why this Ruby does not read the variable: "per_pool" (3.3 on set each pool's size instead), "modular_gc_only"
      # (3.4 on, built with modular GC) or "not_read"; nil when it does, or when the Ruby's version is unknown.
      def unread(name, version)
        return unless version
        return "per_pool" if name == INIT_SLOTS && version >= POOLED_SINCE
        return "modular_gc_only" if name == GC_LIBRARY && version >= MODULAR_SINCE

        "not_read" unless read?(name, version)
      end

      def read?(name, version)
        COMMON.include?(name) || name == INIT_SLOTS ||
          (version >= POOLED_SINCE && (name.match?(PER_POOL) || name == REMEMBERED_RATIO))
      end

      # The variables Ruby names as one pattern ("RUBY_GC_HEAP_%d_INIT_SLOTS", as 3.3 writes it): one per slot pool.
      # @return [Array<String>]
      def per_pool(pattern)
        pattern.include?("%d") ? Array.new(POOLS) { |pool| format(pattern, pool) } : [pattern]
      end

      def version_of(text)
        text && Gem::Version.new(text.to_s[/\A\d+\.\d+(\.\d+)?/] || return)
      end

      private_class_method :unread, :read?, :version_of
    end
  end
end

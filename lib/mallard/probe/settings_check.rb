# frozen_string_literal: true

require "open3"

module Mallard
  module Probe
    # Whether a configuration's settings take effect, asked of the subject's own Ruby (and allocator) before any row
    # runs. Started verbosely (-W), Ruby prints each RUBY_GC_* variable it reads with the value it took
    # ("RUBY_GC_HEAP_GROWTH_FACTOR=1.100000 (default value: 1.800000)"), or why it set one aside ("… is ignored
    # because it must be greater than 0.", "invalid string for NAME: abc", and on 3.3 "The environment variable
    # RUBY_GC_HEAP_INIT_SLOTS is deprecated; use environment variables RUBY_GC_HEAP_%d_INIT_SLOTS instead"), and says
    # nothing of a variable it does not read. jemalloc prints each MALLOC_CONF pair it rejects ("<jemalloc>: Invalid
    # conf pair: …"), and no other allocator reads MALLOC_CONF at all. One check is one start of that Ruby. An action
    # after boot (Allocators::AfterBoot) is code: the Ruby is asked, in a start of its own, which of the methods they
    # need it has.
    module SettingsCheck
      GC_VARIABLE = /\ARUBY_GC_\w+\z/
      MALLOC_CONF = "MALLOC_CONF"
      READ = /\A(?<name>RUBY_GC_\w+)=(?<read>\S+)\ \(default\ value:\ (?<default>[^)]*)\)
              (?:\ is\ ignored\ because\ (?<why>.*?)\.?)?\z/x
      INVALID = /\Ainvalid string for (?<name>RUBY_GC_\w+): /
      DEPRECATED = /The\ environment\ variable\ (?<name>RUBY_GC_\w+)\ is\ deprecated;
                    \ use\ environment\ variables\ (?<instead>\S+)\ instead/x
      JEMALLOC_REJECTED = /<jemalloc>: Invalid conf (?:pair|value): (?<pair>.*)\z/
      # What the check runs: nothing but Ruby's start, without the user's RUBYOPT or gems.
      PROGRAM = ["--disable-gems", "-W", "-e", ""].freeze
      CLEAN = { "RUBYOPT" => nil, "RUBYLIB" => nil }.freeze

      module_function

      # @param ruby [String] the subject's Ruby
      # @param settings [Hash{String=>String}] the configuration's variables
      # @param malloc [String] the allocator the process will run under ("jemalloc" reads MALLOC_CONF)
      # @param preload [String, nil] the allocator's library, preloaded as the rows will
      # @param after_boot [String, nil] the configuration's action once the app has booted
      # @return [Array<Summary::SettingCheck>] one per RUBY_GC_* variable and MALLOC_CONF, and one for the action
      #   after boot; empty without any
      def call(ruby:, settings:, malloc:, preload: nil, after_boot: nil)
        variables(ruby, settings, malloc, preload) + (after_boot ? [action(ruby, after_boot)] : [])
      end

      def variables(ruby, settings, malloc, preload)
        checked = checked(settings)
        return [] if checked.empty?

        said = said(ruby, checked, preload)
        checked.map do |name, value|
          name == MALLOC_CONF ? malloc_conf(value, malloc, said) : gc_variable(name, value, said)
        end
      end

      # The settings this checks: RUBY_GC_* variables and MALLOC_CONF.
      def checked(settings)
        settings.select { |name, _| name.match?(GC_VARIABLE) || name == MALLOC_CONF }
      end

      # What Ruby and its allocator printed on stderr when started with the settings. A Ruby that did not run says
      # nothing of them, which would read as "not read" for every one: that is an error, never a check.
      def said(ruby, settings, preload)
        out, status = Open3.capture2e(CLEAN.merge(settings).merge("LD_PRELOAD" => preload), ruby, *PROGRAM)
        return out if status.success?

        raise Error, "#{ruby} did not run with the settings to check them (#{status}): #{out.lines.last(2).join.strip}"
      rescue SystemCallError => e
        raise Error, "could not start #{ruby} to check the settings: #{e.message}"
      end

      # Whether the Ruby has what the action needs ("read"), or not ("unread", instead: an action it can run, if any).
      def action(ruby, after_boot)
        has = actions(ruby)
        return check(Allocators::AfterBoot::SETTING, after_boot, "read") if has.include?(after_boot)

        check(Allocators::AfterBoot::SETTING, after_boot, "unread", instead: has.first)
      end

      # The actions after boot this Ruby has the methods for.
      def actions(ruby)
        needs = Allocators::AfterBoot::NEEDS
        asked = needs.values.map { |method| "#{method.sub('.', '.respond_to?(:')})" }
        out, status = Open3.capture2e(CLEAN, ruby, "--disable-gems", "-e", "puts #{asked.join(', ')}")
        return needs.keys.zip(out.split).select { |_, answer| answer == "true" }.map(&:first) if status.success?

        raise Error, "#{ruby} did not run to check its actions after boot: #{out.lines.last(2).join.strip}"
      rescue SystemCallError => e
        raise Error, "could not start #{ruby} to check its actions after boot: #{e.message}"
      end

      # Read, set aside (with Ruby's reason), deprecated for another name, or not read by this Ruby at all.
      def gc_variable(name, value, said)
        lines = said.lines(chomp: true)
        found = lines.filter_map { |line| READ.match(line) }.find { |match| match[:name] == name }
        return read(name, value, found) if found

        moved = lines.filter_map { |line| DEPRECATED.match(line) }.find { |match| match[:name] == name }
        return check(name, value, "deprecated", instead: moved[:instead]) if moved
        return check(name, value, "invalid") if lines.any? { |line| INVALID.match(line)&.[](:name) == name }

        check(name, value, "unread")
      end

      def read(name, value, found)
        status = found[:why] ? "ignored" : "read"
        check(name, value, status, read: found[:read], default: found[:default], reason: found[:why])
      end

      # Taken by jemalloc unless it rejected a pair (reason: the pairs rejected); not read by any other allocator.
      def malloc_conf(value, malloc, said)
        return check(MALLOC_CONF, value, "unread") if malloc != "jemalloc"

        rejected = said.lines(chomp: true).filter_map { |line| JEMALLOC_REJECTED.match(line)&.[](:pair) }
        return check(MALLOC_CONF, value, "read", read: value) if rejected.empty?

        check(MALLOC_CONF, value, "invalid", reason: rejected.join(", "))
      end

      def check(name, value, status, **found)
        Summary::SettingCheck.new(name: name, value: value, status: status, **found)
      end

      private_class_method :variables, :action, :actions, :said, :gc_variable, :read, :malloc_conf, :check
    end
  end
end

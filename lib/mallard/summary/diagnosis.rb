# frozen_string_literal: true

module Mallard
  module Summary
    # What `mallard doctor` learned about one process: plain data, rendered by report/ and judged
    # by analysis/findings. With `-- CMD`, pid and command are the process read (the Ruby process CMD
    # started), started is CMD's own process, other_rubies the rest of the Ruby processes under it, and
    # looked says when it was read: after how long, and whether it had settled by then.
    # settings: its RUBY_GC_* variables, MALLOC_CONF and YJIT settings as its own Ruby (and allocator) took them
    # (Summary::SettingCheck; Probe::SettingsCheck, Probe::YjitCheck); nil when not a Ruby, or when they could not be
    # checked (settings_unchecked: why). tree: the process's tree when it has children (a server's master and its
    # workers: Summary::TreeShape), nil when it has none.
    Diagnosis = Struct.new(:pid, :command, :executable, :ruby, :yjit_requested, :allocator,
                           :environment, :threads, :memory, :expected, :verification_problems,
                           :findings, :catalog, :malloc_trim, :started, :other_rubies, :looked,
                           :settings, :settings_unchecked, :tree, keyword_init: true) do
      # Variables shown even when unset, because "unset" is itself the answer people look for.
      self::SHOWN_VARIABLES = %w[LD_PRELOAD MALLOC_ARENA_MAX MALLOC_CONF GLIBC_TUNABLES RUBY_YJIT_ENABLE].freeze
      # glibc's other tunables and Ruby's GC knobs, shown when set.
      self::SHOWN_PATTERN = /\A(?:RUBY_GC_|MALLOC_\w+_\z|RUBYOPT\z)/

      def self.relevant_environment(environ)
        shown = self::SHOWN_VARIABLES.to_h { |var| [var, environ[var]] }
        shown.merge(environ.select { |var, _| var.match?(self::SHOWN_PATTERN) }.sort.to_h)
      end

      # A checked setting as the process gives it: RUBY_GC_HEAP_GROWTH_FACTOR=1.1, --yjit-exec-mem-size=64, --yjit.
      # @param check [SettingCheck]
      def self.setting(check)
        check.value.nil? ? check.name : "#{check.name}=#{check.value}"
      end

      def ruby?
        !ruby.nil?
      end

      def to_h
        { pid: pid, command: command, executable: executable,
          ruby: { engine: ruby&.engine, version: ruby&.version, yjit_requested: yjit_requested },
          allocator: allocator.to_h.merge(malloc_trim: malloc_trim), env: environment, threads: threads,
          memory: memory.to_h, settings: settings&.map(&:to_h), settings_unchecked: settings_unchecked,
          expected: expected_h, findings: findings.map(&:to_h), allocators_here: catalog,
          started: started, other_ruby: other_rubies.to_a, looked: looked, tree: tree&.to_h }
      end

      private

      def expected_h
        expected && { name: expected, verified: verification_problems.empty?, problems: verification_problems }
      end
    end
  end
end

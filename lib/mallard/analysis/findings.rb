# frozen_string_literal: true

module Mallard
  module Analysis
    # A judgement about a process, with something concrete to do about it.
    Finding = Struct.new(:level, :message, :advice, keyword_init: true) do
      self::LEVELS = %w[error warning info].freeze

      def error?
        level == "error"
      end
    end

    # Turns a doctor Diagnosis into findings. Pure: everything it needs is in the diagnosis.
    module Findings
      KB_PER_MB = 1024.0

      module_function

      # @return [Array<Finding>] most severe first
      def for(diagnosis, cpus:)
        rules = %i[verification preload_missing two_allocators not_ruby glibc_arenas
                   arena_limit_ignored malloc_conf_ignored trim_ignored jemalloc_untuned swap yjit]
        found = rules.flat_map { |rule| send(rule, diagnosis, cpus) }.compact
        found.sort_by { |finding| Finding::LEVELS.index(finding.level) }
      end

      def verification(diagnosis, _cpus)
        return if diagnosis.verification_problems.to_a.empty?

        Finding.new(level: "error",
                    message: "the #{diagnosis.expected} configuration did not take effect: " \
                             "#{diagnosis.verification_problems.join('; ')}",
                    advice: "this process is not a valid measurement of #{diagnosis.expected}; check that " \
                            "nothing between mallard and Ruby (a wrapper script, sudo, env -i) resets the environment")
      end

      def preload_missing(diagnosis, _cpus)
        diagnosis.allocator.preload_missing.map do |entry|
          Finding.new(level: "error",
                      message: "LD_PRELOAD names #{entry}, which is not mapped: the preload did not take effect",
                      advice: "check that the file exists and is a #{RUBY_PLATFORM[/\A[^-]+/]} shared library; " \
                              "the dynamic loader printed the reason on the process's stderr")
        end
      end

      def two_allocators(diagnosis, _cpus)
        return if diagnosis.allocator.also_mapped.empty?

        Finding.new(level: "warning",
                    message: "more than one allocator is mapped: #{diagnosis.allocator.path} and " \
                             "#{diagnosis.allocator.also_mapped.join(', ')}",
                    advice: "keep one: memory allocated by one allocator and freed by another corrupts the heap")
      end

      def not_ruby(diagnosis, _cpus)
        return if diagnosis.ruby?

        Finding.new(level: "info", message: "not a Ruby process (#{diagnosis.executable || 'executable unknown'})",
                    advice: "the allocator findings still apply; point mallard at the Ruby process itself " \
                            "for Ruby-specific advice")
      end

      def glibc_arenas(diagnosis, cpus)
        return unless diagnosis.allocator.name == "glibc" && arena_limit(diagnosis).nil?
        return single_threaded_glibc(diagnosis) if diagnosis.threads <= 2

        Finding.new(level: "warning",
                    message: "glibc malloc with #{diagnosis.threads} threads and no arena limit: fragmentation risk",
                    advice: ArenaLimit.doctor_advice(cpus))
      end

      def single_threaded_glibc(diagnosis)
        Finding.new(level: "info",
                    message: "glibc malloc with #{diagnosis.threads} thread(s): little arena fragmentation to win",
                    advice: "allocator changes pay off in long-running multi-threaded processes (Puma, Sidekiq); " \
                            "short-lived ones rarely show a difference")
      end

      def arena_limit_ignored(diagnosis, _cpus)
        return if diagnosis.allocator.name == "glibc" || arena_limit(diagnosis).nil?

        Finding.new(level: "info",
                    message: "an arena limit is set (#{arena_limit(diagnosis)}), but only glibc malloc reads it " \
                             "and this process uses #{diagnosis.allocator.name}",
                    advice: "drop it to avoid confusion, or remove the preload if glibc was meant")
      end

      def malloc_conf_ignored(diagnosis, _cpus)
        conf = diagnosis.environment["MALLOC_CONF"]
        return if conf.nil? || diagnosis.allocator.name == "jemalloc"

        Finding.new(level: "warning",
                    message: "MALLOC_CONF=#{conf} is set, but jemalloc is not loaded, so it has no effect",
                    advice: "preload jemalloc (LD_PRELOAD) or remove MALLOC_CONF")
      end

      def trim_ignored(diagnosis, _cpus)
        return unless diagnosis.malloc_trim && diagnosis.allocator.name != "glibc"

        Finding.new(level: "info",
                    message: "mallard/trim is loaded, but malloc_trim belongs to glibc and this process uses " \
                             "#{diagnosis.allocator.name}",
                    advice: "drop mallard/trim here: #{diagnosis.allocator.name} returns memory on its own")
      end

      def jemalloc_untuned(diagnosis, _cpus)
        return unless diagnosis.allocator.name == "jemalloc" && diagnosis.environment["MALLOC_CONF"].nil?
        return if diagnosis.threads <= 2

        Finding.new(level: "info", message: "jemalloc (#{diagnosis.allocator.via}) with its default settings",
                    advice: "MALLOC_CONF=#{Allocators::Catalog::JEMALLOC_TUNING} often shrinks threaded " \
                            "servers further; measure it with `mallard compare` (jemalloc-tuned)")
      end

      def swap(diagnosis, _cpus)
        swap_kb = diagnosis.memory.swap_kb
        return unless swap_kb.positive?

        Finding.new(level: "warning",
                    message: format("%.1f MB of this process is swapped out, so its RSS understates its memory",
                                    swap_kb / KB_PER_MB),
                    advice: "compare RSS + swap, and look at the host's memory pressure before trusting RSS trends")
      end

      def yjit(diagnosis, _cpus)
        return unless diagnosis.yjit_requested

        Finding.new(level: "info", message: "YJIT is requested: it adds executable memory per process",
                    advice: "keep YJIT on or off alike in every configuration you compare")
      end

      # MALLOC_ARENA_MAX, or glibc.malloc.arena_max in GLIBC_TUNABLES.
      def arena_limit(diagnosis)
        env = diagnosis.environment
        env["MALLOC_ARENA_MAX"] || env["GLIBC_TUNABLES"].to_s[/glibc\.malloc\.arena_max=(\d+)/, 1]
      end
    end
  end
end

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
      # Below this part of its RSS shared, a worker is said to share little (#workers_share_little).
      WORKERS_SHARED_PCT = 35

      module_function

      # @return [Array<Finding>] most severe first
      def for(diagnosis, cpus:)
        rules = %i[verification preload_missing two_allocators not_ruby glibc_arenas
                   arena_limit_ignored malloc_conf_ignored trim_ignored jemalloc_untuned swap yjit
                   settings_not_taken yjit_on_anyway settings_unchecked workers_share_little]
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

      # A RUBY_GC_* variable, MALLOC_CONF or YJIT setting that the process's own Ruby (or jemalloc) did not take, as
      # it said when started with it: believed, and without effect. MALLOC_CONF without jemalloc is
      # malloc_conf_ignored's.
      def settings_not_taken(diagnosis, _cpus)
        ruby = "Ruby #{diagnosis.ruby&.version}"
        diagnosis.settings.to_a.filter_map do |check|
          next if check.taken? || (check.name == Probe::SettingsCheck::MALLOC_CONF && check.status == "unread")

          message, advice = not_taken(check, ruby)
          Finding.new(level: "warning", message: "#{Summary::Diagnosis.setting(check)} #{message}", advice: advice)
        end
      end

      # What was not taken, and what to set instead: [message, advice].
      def not_taken(check, ruby)
        return malloc_conf_rejected(check) if check.name == Probe::SettingsCheck::MALLOC_CONF
        return yjit_not_taken(check, ruby) unless check.name.match?(Probe::SettingsCheck::GC_VARIABLE)

        case check.status
        when "deprecated"
          ["is deprecated and not read by #{ruby}", "set #{names(check.instead)} instead: the variables #{ruby} reads"]
        when "ignored"
          ["is ignored by #{ruby}, as #{check.reason}",
           "#{ruby} keeps its default (#{check.default}); give a value it takes, or drop the variable"]
        when "invalid" then ["is no value #{ruby} reads", "#{ruby} keeps its default; give it a number"]
        else ["is not read by #{ruby}", gc_unread(check, ruby)]
        end
      end

      # RUBY_GC_HEAP_0_INIT_SLOTS … RUBY_GC_HEAP_4_INIT_SLOTS for Ruby's RUBY_GC_HEAP_%d_INIT_SLOTS.
      def names(pattern)
        pools = GcSettings.per_pool(pattern)
        pools.size > 1 ? "#{pools.first} … #{pools.last}, one per slot pool," : pools.first
      end

      def gc_unread(check, ruby)
        per_pool = check.name.match?(GcSettings::PER_POOL)
        return "#{ruby} sizes its heap as one: set #{GcSettings::INIT_SLOTS} instead" if per_pool

        "no variable of that name is read by #{ruby}: check its spelling; started with -W, Ruby prints each " \
          "RUBY_GC_* variable it reads"
      end

      def malloc_conf_rejected(check)
        ["has pairs jemalloc rejects: #{check.reason}",
         "jemalloc takes the other pairs and skips these: correct or drop them (`man jemalloc` lists its options)"]
      end

      def yjit_not_taken(check, ruby)
        said = check.reason && ": #{check.reason}"
        case check.status
        when "invalid"
          ["is refused by #{ruby}#{said}", "`ruby --help` lists the YJIT options #{ruby} takes; drop it or use one"]
        when "unread"
          ["is not read: #{ruby} was built without YJIT#{said}",
           "build Ruby with YJIT (rustc present when it is configured) to use it, or drop the setting"]
        else ["leaves YJIT off in #{ruby}#{said}", "set RUBY_YJIT_ENABLE=1 or --yjit to turn it on"]
        end
      end

      # 3.1 turns YJIT on for any value of RUBY_YJIT_ENABLE: a 0 or false meant off, and got on.
      def yjit_on_anyway(diagnosis, _cpus)
        diagnosis.settings.to_a.filter_map do |check|
          next unless check.name == Probe::YjitCheck::ENABLE && check.taken? && check.read == "on" &&
                      !check.value.to_s.match?(Probe::YjitCheck::ON)

          ruby = "Ruby #{diagnosis.ruby&.version}"
          Finding.new(level: "warning", message: "RUBY_YJIT_ENABLE=#{check.value} turns YJIT on in #{ruby}",
                      advice: "#{ruby} turns YJIT on whatever the variable's value: unset it to keep YJIT off")
        end
      end

      def settings_unchecked(diagnosis, _cpus)
        why = diagnosis.settings_unchecked
        return unless why

        Finding.new(level: "info", message: "its RUBY_GC_*, MALLOC_CONF and YJIT settings were not checked: #{why}",
                    advice: "check them by hand: its Ruby, started with -W and the same variables, prints each " \
                            "RUBY_GC_* variable it reads, and jemalloc each MALLOC_CONF pair it rejects")
      end

      # Forked from a master that loaded the app, a worker shares most of its memory at first (96% measured for a
      # Rack app with 50 MiB of data, 85% for a bare one); loading the app itself, it shares only Ruby and the
      # libraries every process maps (19%). A worker that shares little was not preloaded, or has written over what it
      # shared: which, the figures alone cannot tell, so the advice names both and the comparison that tells.
      def workers_share_little(diagnosis, _cpus)
        tree = diagnosis.tree
        return unless tree&.workers&.positive? && tree.worker_shared_pct < WORKERS_SHARED_PCT

        Finding.new(level: "info",
                    message: "its #{tree.workers} workers share #{tree.worker_shared_pct}% of their memory (the " \
                             "median worker's); each holds #{format('%.1f', tree.worker_uss_kb / KB_PER_MB)} MB of " \
                             "its own, what one more worker would add now",
                    advice: "a master that does not preload the app (preload_app!) leaves each worker its own copy, " \
                            "and workers that write to what they shared unshare it as they serve; `mallard compare " \
                            "APP --shape 2x5,2x5-nopreload --rate N` measures the first on this app")
      end

      # MALLOC_ARENA_MAX, or glibc.malloc.arena_max in GLIBC_TUNABLES.
      def arena_limit(diagnosis)
        env = diagnosis.environment
        env["MALLOC_ARENA_MAX"] || env["GLIBC_TUNABLES"].to_s[/glibc\.malloc\.arena_max=(\d+)/, 1]
      end
    end
  end
end

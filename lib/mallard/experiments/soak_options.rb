# frozen_string_literal: true

module Mallard
  module Experiments
    # How a soak runs (Soak, and the soaks of Compare and Heap): load shape, sampling, limits. Defaults finish in
    # well under a minute. The command line's text is parsed into it in cli/ (CLI::MeasureOptions).
    #
    # #validate! refuses, before anything starts, every value that would make a run unbounded,
    # meaningless or a crash halfway: the careless value costs one line, not a wasted soak.
    SoakOptions = Struct.new(:duration, :requests, :concurrency, :paths, :interval, :boot_timeout,
                             :allocator, :ruby_client, :max_error_pct, :drain_timeout, :rate, :cpus,
                             :production_cpus, :agent, :ruby, :yjit, :until_decided, :full_gc_every,
                             :memory_limit, :reconnect, :idle, :neighbours, keyword_init: true)

    # Reopened rather than built in Struct.new's block, so that its limits are its own constants.
    class SoakOptions
      # mallard only ever loads for a bounded time; a day is longer than any soak worth waiting for.
      MAX_DURATION = 24 * 3600
      MIN_INTERVAL = 0.05
      # The warm-up may take up to half the samples (Analysis::Warmup) and the leak verdict needs 6 in
      # the rest (Analysis::LeakVerdict::MIN_SAMPLES): fewer than 12 samples can never give a verdict.
      MIN_SAMPLES = 12
      MIN_DURATION = 0.6 # MIN_SAMPLES at MIN_INTERVAL
      # One connection is one open file in wrk (or one thread in the built-in client); beyond ten
      # thousand it measures the load tool, not the app.
      MAX_CONCURRENCY = 10_000
      # More than a day at 100,000 req/s could send: a bigger number is a typo, not a cap.
      MAX_REQUESTS = 10_000_000_000
      # An open-loop rate beyond what one wrk on loopback can send is a typo, not a plan.
      MAX_RATE = 1_000_000
      MAX_BOOT_TIMEOUT = 3600
      # More CPUs than any host has is a typo (Linux's default NR_CPUS is 4,096 at most).
      MAX_PRODUCTION_CPUS = 4096
      # Descriptors wrk (or mallard) needs besides its connections: stdio, epoll, the script, logs.
      SPARE_FILES = 32

      def self.defaults
        new(duration: 20.0, requests: nil, concurrency: 10, paths: ["/"], interval: 0.5, boot_timeout: 60.0,
            allocator: nil, ruby_client: false, max_error_pct: 1.0, drain_timeout: 30.0, rate: nil, cpus: nil,
            production_cpus: nil, agent: true, ruby: nil)
      end

      # agent: false runs the subject without mallard's agent (compare's round that measures what the agent costs).
      # until_decided: the most seconds of load `soak --until-decided` may take (duration is then the least);
      # full_gc_every: seconds without a major GC after which the agent runs a full GC (Agent::FullGc); nil: never.
      # memory_limit: --memory-limit as typed ("600M"; MemorySize reads it), watched against the subject's tree.
      # reconnect: a new connection for every request (Connection: close), as a proxy without keep-alive sends them
      # (nginx's default upstream); `mallard plan`'s load, so that each of a tree's workers gets its share.
      # idle: soak --idle, a job worker with no workload for duration (Workload::Jobs without a path).
      # neighbours: soak --neighbours, copies of the app run and loaded beside it (Neighbours); nil: none.
      #
      # Where the subject and the load run (Cpus::Layout), chosen from --cpus by #validate!; not an option itself,
      # so that options.to_h (meta.json's copy) keeps what the user typed.
      attr_accessor :cpu_layout

      # The Ruby the app runs on (Target::SubjectRuby), from --ruby (mallard's own without it); chosen by #validate!.
      attr_writer :subject_ruby

      def subject_ruby
        @subject_ruby ||= Target::SubjectRuby.own
      end

      # The default interval, made finer for short runs so that they still get MIN_SAMPLES.
      def self.default_interval(duration)
        [defaults.interval, duration.to_f / MIN_SAMPLES].min
      end

      # @param load [Boolean] false for a script, which runs without load: only sampling matters
      # @param open_files [Integer] the soft limit on open files (wrk and the subject inherit it)
      # @return [self]
      # @raise [UsageError] naming the option and what it accepts
      def validate!(load: true, open_files: Process.getrlimit(:NOFILE).first, cpus: Cpus::Affinity.allowed)
        self.cpu_layout = Cpus::Layout.choose(self.cpus, available: cpus)
        check_production_cpus
        self.subject_ruby = ruby ? Target::SubjectRuby.resolve(ruby) : Target::SubjectRuby.own
        check_yjit
        check_full_gc
        check_memory_limit
        check_duration if load
        check_interval
        return self unless load

        check_rate
        check_until_decided
        check_samples
        check_concurrency(open_files)
        check_counts
        check_paths
        check_neighbours
        self
      end

      # RUBY_YJIT_ENABLE for --yjit on or a size (1) and off (unset), and a size's --yjit-exec-mem-size added to the
      # subject's RUBYOPT (YjitMode.env); nothing without --yjit. Whether it took is read from inside the app
      # (meta.json's subject_ruby): an initializer may still turn YJIT on.
      # @param rubyopt [String, nil] the subject's RUBYOPT as mallard built it (its agent, a configuration's files)
      def yjit_env(rubyopt)
        return {} unless yjit

        YjitMode.env(yjit, rubyopt)
      end

      # Why a Ruby cannot run a --yjit mode, asked before anything starts: it was built without YJIT, or it refuses
      # the size (started once with the option alone: 3.3 refuses 0 and dies at 4096, Probe::YjitCheck).
      # @param ruby [Target::SubjectRuby]
      # @return [String, nil] nil when it can
      def self.yjit_refusal(mode, ruby)
        return unless YjitMode.on?(mode)
        return "#{ruby.path} (Ruby #{ruby.version}) was built without YJIT" unless ruby.yjit_built

        option = YjitMode.option(mode)
        return unless option

        check = Probe::YjitCheck.call(ruby: ruby.path, settings: [option.split("=")]).first
        return if check.taken? && check.read == "on"

        # A Ruby that dies at boot prints a whole bug report: its first two lines say why.
        said = check.reason&.split("; ")&.first(2)&.join("; ")
        "#{ruby.path} (Ruby #{ruby.version}) does not take #{option}: #{said || "YJIT stayed #{check.read}"}"
      end

      # @return [Integer, nil] --memory-limit in KiB; nil without one
      def memory_limit_kb = memory_limit && MemorySize.kb(memory_limit)

      # The load's length: the budget when the soak runs until it decides, else the duration.
      def load_seconds = until_decided || duration

      private

      def check_production_cpus
        return if production_cpus.nil? || production_cpus.between?(1, MAX_PRODUCTION_CPUS)

        raise UsageError, "--production-cpus must be between 1 and #{MAX_PRODUCTION_CPUS}, not #{production_cpus}"
      end

      def check_yjit
        return if yjit.nil?
        unless YjitMode.valid?(yjit)
          raise UsageError, "--yjit takes on, off or a code region size in MiB (1 to #{YjitMode::MAX_MIB}), not #{yjit}"
        end

        refusal = self.class.yjit_refusal(yjit, subject_ruby)
        raise UsageError, "--yjit #{yjit}: #{refusal}" if refusal
      end

      def check_memory_limit
        return if memory_limit.nil? || memory_limit_kb

        raise UsageError, "--memory-limit takes a size from 1M to 1T, a number with K, M, G or T (binary: 600M, 2G), " \
                          "not #{memory_limit}"
      end

      def check_duration
        return if duration.finite? && duration.between?(MIN_DURATION, MAX_DURATION)

        raise UsageError, "--duration must be between #{MIN_DURATION} s (#{MIN_SAMPLES} samples " \
                          "#{MIN_INTERVAL} s apart) and #{MAX_DURATION} s (a day), not #{duration}"
      end

      def check_until_decided
        return if until_decided.nil?

        unless until_decided.finite? && until_decided.between?(duration, MAX_DURATION)
          raise UsageError, "--until-decided's budget must be at least --duration (#{duration} s) and at most " \
                            "#{MAX_DURATION} s (a day), not #{until_decided}"
        end
        return unless requests

        raise UsageError, "--until-decided and --requests both say when the load ends; give one"
      end

      def check_full_gc
        return if full_gc_every.nil? || (full_gc_every.finite? && full_gc_every.between?(1, MAX_DURATION))

        raise UsageError, "--full-gc-every must be between 1 and #{MAX_DURATION} seconds, or off, not #{full_gc_every}"
      end

      # An open loop needs wrk's delay(): the built-in client sends as fast as its connections allow.
      def check_neighbours
        return if neighbours.nil?
        unless neighbours.is_a?(Integer) && neighbours.between?(0, Neighbours::MAX)
          raise UsageError, "--neighbours must be between 0 and #{Neighbours::MAX}, not #{neighbours}"
        end
        return unless concurrency == "auto" && neighbours.positive?

        raise UsageError, "--neighbours loads each copy as the app measured is loaded; with --concurrency auto, " \
                          "give a number (run the ramp alone first)"
      end

      def check_rate
        return if rate.nil?
        unless rate.finite? && rate.positive? && rate <= MAX_RATE
          raise UsageError, "--rate must be more than 0 and at most #{MAX_RATE} requests a second, not #{rate}"
        end
        return unless ruby_client || !Probe::Wrk.available?

        raise UsageError, "--rate needs wrk (an open loop is paced by wrk's delay()); install wrk or leave --rate out"
      end

      def check_interval
        return if interval.finite? && interval.between?(MIN_INTERVAL, MAX_DURATION)

        raise UsageError, "--interval must be between #{MIN_INTERVAL} s and #{MAX_DURATION} s, not #{interval}"
      end

      def check_samples
        return if (duration / interval).round(6) >= MIN_SAMPLES # rounded: 0.6 / 0.05 is 11.999… in floats

        raise UsageError, "--interval #{interval} leaves fewer than #{MIN_SAMPLES} samples in --duration " \
                          "#{duration}; sample at most every #{(duration / MIN_SAMPLES).floor(3)} s or load for longer"
      end

      def check_concurrency(open_files)
        return check_auto(open_files) if concurrency == "auto"
        unless concurrency.between?(1, MAX_CONCURRENCY)
          raise UsageError, "--concurrency must be between 1 and #{MAX_CONCURRENCY}, not #{concurrency}"
        end
        return if concurrency + SPARE_FILES <= open_files

        raise UsageError, "--concurrency #{concurrency} needs more open files than the limit allows " \
                          "(#{open_files}, see `ulimit -n`); lower it or raise the limit"
      end

      # The ramp finds a closed loop's connections; an open loop's pace is its --rate.
      def check_auto(open_files)
        raise UsageError, "--concurrency auto finds a closed loop's load; with --rate, give a number" if rate
        return if Analysis::ConcurrencyChoice::MAX_CONCURRENCY + SPARE_FILES <= open_files

        raise UsageError, "--concurrency auto may ramp to #{Analysis::ConcurrencyChoice::MAX_CONCURRENCY} " \
                          "connections, more open files than the limit allows (#{open_files}, see `ulimit -n`)"
      end

      def check_counts
        if requests && !requests.between?(1, MAX_REQUESTS)
          raise UsageError, "--requests must be between 1 and #{MAX_REQUESTS}, not #{requests}"
        end

        unless boot_timeout.finite? && boot_timeout.positive? && boot_timeout <= MAX_BOOT_TIMEOUT
          raise UsageError, "--boot-timeout must be more than 0 and at most #{MAX_BOOT_TIMEOUT} s, " \
                            "not #{boot_timeout}"
        end

        check_limits
      end

      def check_limits
        unless max_error_pct.finite? && max_error_pct.between?(0, 100)
          raise UsageError, "--max-errors must be a percentage from 0 to 100, not #{max_error_pct}"
        end
        return if drain_timeout.finite? && drain_timeout.between?(0, MAX_BOOT_TIMEOUT)

        raise UsageError, "--drain-timeout must be between 0 and #{MAX_BOOT_TIMEOUT} s, not #{drain_timeout}"
      end

      # Paths go into the request line as they are: printable ASCII without spaces (RFC 3986; anything
      # else percent-encoded). Checked on the bytes, so a path that is not valid UTF-8 is refused too.
      def check_paths
        raise UsageError, "no request paths given (an empty --paths file?)" if paths.empty?

        bad = paths.find { |path| !path.b.match?(%r{\A/[\x21-\x7e]*\z}n) }
        return unless bad

        raise UsageError, "request path #{bad.b.inspect} must start with / and hold only printable ASCII, " \
                          "no spaces (percent-encode the rest, e.g. %20)"
      end
    end
  end
end

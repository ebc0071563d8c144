# frozen_string_literal: true

require "set"
require "uri"

module Mallard
  class CLI
    # The options `soak` and `compare` share: what to run (the target) and how to load it. Every value
    # is checked here, before the run directory exists and before the subject starts.
    class MeasureOptions
      TARGETS = <<~TEXT
        Targets:  DIR                       a Rack app (config.ru, Rails included), served by Puma
                  --url URL -- CMD          any server; {port} in CMD and URL is a free port
                  --script FILE [-- ARGS]   a Ruby script run to completion
                  --jobs BACKEND --workload FILE [DIR | -- CMD]
                                            a job worker under the jobs FILE pushes, against a store of its
                                            own: sidekiq (default: bundle exec sidekiq in DIR; a Redis;
                                            --sidekiq is the same), solid_queue (default: bin/jobs in DIR,
                                            fork mode; SQLite made by bin/rails db:prepare), resque
                                            (default: QUEUE=* rake resque:work in DIR; a Redis), good_job
                                            (default: bin/good_job start in DIR; a PostgreSQL server)
      TEXT

      # The job backends --jobs measures.
      JOB_BACKENDS = %w[sidekiq solid_queue resque good_job].freeze

      # --until-decided's budget when none is given: ten minutes of load.
      DECIDE_BUDGET = 600.0

      # user: who the subject runs as (--user), once #target has resolved it
      attr_reader :soak, :user

      def initialize
        @soak = Experiments::SoakOptions.defaults
        @paths = []
        @subject = { threads: 5, workers: 0 }
        @given = Set.new
        @user = Target::SubjectUser::Same
      end

      def define(opts)
        load_options(opts)
        neighbours_option(opts)
        limit_options(opts)
        subject_options(opts)
      end

      # A soak's own: load until the verdict is decided, within a budget (default DECIDE_BUDGET seconds of load).
      def define_until_decided(opts)
        on(opts, "--until-decided [SECONDS]", Float, "keep the load on (at least --duration) until memory, the live " \
                                                     "set and malloc in use are decided, or SECONDS of load " \
                                                     "(default #{DECIDE_BUDGET.round}) are spent") do |v|
          @soak.until_decided = v || DECIDE_BUDGET
        end
      end

      # A soak's own, for a job worker: the backend started with no workload, for DURATION (seconds, from the command's
      # duration parser), so that growth with no jobs is seen as the backend's own.
      def define_idle(opts, &seconds)
        on(opts, "--idle DURATION", "with --jobs: run the backend with no workload for DURATION (90s, 15m, 1h): " \
                                    "its memory over time, with no jobs") do |text|
          @subject[:idle] = @soak.idle = true
          @soak.duration = seconds.call(text)
        end
      end

      # --out, --json, --html and --help, recorded in the command's own settings.
      def define_output(opts, settings, command)
        opts.on("--out DIR", "run directory (default .mallard/runs/<time>-#{command})") { |v| settings[:out] = v }
        opts.on("--json", "print the summary as JSON") { settings[:json] = true }
        HtmlOutput.define(opts, settings)
        opts.on("-h", "--help", "show this help") { settings[:help] = opts.help }
      end

      # Arguments that are not valid in their encoding are taken as bytes: OptionParser's patterns raise
      # on them, and the checks then name the bad value instead of crashing.
      # @return [Array(Array<String>, Array<String>, nil)] the operands, and the command after `--`
      #   (nil without `--`)
      def parse(parser, argv)
        separator = argv.index("--")
        own = (separator ? argv[0...separator] : argv).map { |arg| arg.valid_encoding? ? arg : arg.b }
        [parser.parse(own), separator ? argv[(separator + 1)..] : nil]
      end

      # @param operands [Array<String>] what remains after options (the app directory)
      # @param command [Array<String>, nil] what follows `--`
      # @raise [UsageError] any value or combination that would not measure what was asked
      def target(operands, command)
        @user = Target::SubjectUser.resolve(@subject[:user]) if @subject[:user]
        target = TargetChoice.new(@subject, @given, @user).build(operands, command)
        finish_soak(load: target.kind != "script")
        target
      end

      # The checks that need the output settings (--out, --html): still before anything is created.
      # The memory configurations, sized for the production host when --production-cpus says how big it is.
      def catalog = Allocators::Catalog.for(@soak.production_cpus)

      def check_outputs!(settings)
        HtmlOutput.check!(settings[:html])
        @user.check_reach!(settings[:out] || Run::Directory::DEFAULT_ROOT)
      end

      # Puma's threads per process (--threads, default 5): `plan` serves every soak of its shapes with them.
      def threads = @subject[:threads]

      # Whether the command line gave this option (compare --shape refuses --workers and --threads beside it).
      def given?(option)
        @given.include?(option)
      end

      # The options the command line gave.
      def given_options = @given.to_a

      # Whether the target is an app directory, which mallard serves and can run beside copies of itself (--neighbours).
      # @param command [Array<String>, nil] what follows `--`
      def app_directory?(command) = command.nil? && !@subject[:jobs] && !@subject[:script]

      # Puma's workers (--workers, default 0).
      def workers = @subject[:workers]

      # compare --like: production's threads, workers, CPUs and neighbours ({"threads" => 16, "workers" => 2,
      # "cpus" => 4, "neighbours" => 7}), where the command line set none; the CPUs' layout chosen again; paths: the
      # load's rotation for production's request mix (Analysis::RequestMix.rotation), nil to keep the command line's.
      def follow(applied, paths: nil)
        @soak.paths = paths if paths
        @soak.neighbours = applied["neighbours"] if applied["neighbours"]
        @subject[:threads] = applied["threads"] if applied["threads"]
        @subject[:workers] = applied["workers"] if applied["workers"]
        return unless applied["cpus"]

        @soak.cpus = applied["cpus"].to_s
        @soak.cpu_layout = Cpus::Layout.choose(@soak.cpus, available: Cpus::Affinity.allowed)
      end

      private

      def finish_soak(load:)
        paths = @paths.empty? ? url_path : @paths
        @soak.paths = paths if paths
        @soak.allocator ||= "glibc" if @soak.production_cpus # sized as in production, not as glibc sizes it here
        @soak.interval = Experiments::SoakOptions.default_interval(@soak.duration) if load && !given?("--interval")
        @soak.validate!(load: load)
      end

      # --url's own path is the page to load ("the URL to load") unless --path says otherwise: the load tools request
      # their paths on the server's address, so `--url http://127.0.0.1:{port}/health` loaded / until 2026-11-27 (a
      # benchmark that did the same measured a Rails app's 404 page for three days). nil: the URL's path is /, or the
      # URL is no URL (the target refuses it, with its own message).
      def url_path
        return unless @subject[:url]

        path = URI.parse(@subject[:url].gsub(Target::ServerCommand::PORT, "1")).request_uri
        [path] unless path == "/"
      rescue URI::Error, NoMethodError # NoMethodError: a URL without a scheme has no request_uri
        nil
      end

      # Defines an option and notes that it was given, so that one not applying to the target is refused.
      def on(opts, name, *args)
        opts.on(name, *args) do |value|
          @given << name.split.first
          yield value
        end
      end

      def load_options(opts)
        on(opts, "--duration SECONDS", Float, "load duration (default 20, at most a day)") { |v| @soak.duration = v }
        on(opts, "--requests N", Integer, "stop after N requests") { |v| @soak.requests = v }
        concurrency_option(opts)
        on(opts, "--path PATH", "request path; repeat for round-robin (default /)") { |v| @paths << v }
        on(opts, "--paths FILE", "request paths, one per line") { |v| @paths.concat(read_paths(v)) }
        on(opts, "--ruby-client", "use the built-in load client even if wrk is installed") do
          @soak.ruby_client = true
        end
        on(opts, "--rate N", Float, "open loop: send N requests a second in all, whatever the answers' pace " \
                                    "(default: closed loop, each connection waits for its answer)") do |v|
          @soak.rate = v
        end
        on(opts, "--cpus N|split|SUBJECT:LOAD", "the subject's CPUs: N to match the production host (the load " \
                                                "gets the rest), split or CPU lists (e.g. 1:0) to keep the load " \
                                                "apart for cost questions (default: all, shared with the load)") do |v|
          @soak.cpus = v
        end
        on(opts, "--production-cpus N", Integer, "size glibc's arenas as on a production host with N CPUs " \
                                                 "(MALLOC_ARENA_MAX=8N, glibc's own limit there)") do |v|
          @soak.production_cpus = v
        end
      end

      def neighbours_option(opts)
        on(opts, "--neighbours N", Integer, "an app directory: N more copies of it beside the one measured, each " \
                                            "as configured and loaded alike, on its CPUs (a host's crowding; " \
                                            "compare --like takes it from production)") do |v|
          @soak.neighbours = v
        end
      end

      def concurrency_option(opts)
        on(opts, "--concurrency N|auto", "open connections (default 10, at most 10000); soak's auto: a short ramp " \
                                         "finds the fewest that reach the app's best req/s within its latency") do |v|
          @soak.concurrency = v == "auto" ? v : Integer(v)
        rescue ArgumentError
          raise OptionParser::InvalidArgument, "#{v} (a number, or auto)"
        end
      end

      def limit_options(opts)
        on(opts, "--interval SECONDS", Float, "sampling interval (default 0.5; finer for runs under 6 s, " \
                                              "which still get 12 samples)") { |v| @soak.interval = v }
        on(opts, "--max-errors PCT", Float, "fail the measurement when more than PCT% of requests fail " \
                                            "(default 1)") { |v| @soak.max_error_pct = v }
        on(opts, "--boot-timeout SECONDS", Float, "wait this long for the server (default 60)") do |v|
          @soak.boot_timeout = v
        end
        on(opts, "--drain-timeout SECONDS", Float, "job worker: after --duration, wait at most this long for " \
                                                   "the queues to drain (default 30)") { |v| @soak.drain_timeout = v }
        on(opts, "--memory-limit SIZE", "watch the subject's tree (summed PSS) against SIZE (600M, 2G): crossing it " \
                                        "fails the run as a container's OOM would (watched, not enforced)") do |v|
          @soak.memory_limit = v
        end
      end

      def subject_options(opts)
        on(opts, "--threads N", Integer, "Puma threads (default 5); Sidekiq's -c (default 10)") do |v|
          @subject[:threads] = v
        end
        on(opts, "--workers N", Integer, "Puma workers (default 0)") { |v| @subject[:workers] = v }
        on(opts, "--url URL", "with -- CMD: the URL to load") { |v| @subject[:url] = v }
        on(opts, "--script FILE", "run a Ruby script to completion instead of a server") { |v| @subject[:script] = v }
        job_options(opts)
        on(opts, "--ruby PATH", "run the app on this Ruby (its puma, bundle, sidekiq and gems; mallard's C " \
                                "extensions are built for it on first use)") { |v| @soak.ruby = v }
        on(opts, "--yjit MODE", "on, off, or a code region size in MiB (on, with --yjit-exec-mem-size): YJIT for the " \
                                "app (compare: a list, e.g. off,on,16,32, crosses them)") do |v|
          @soak.yjit = v
        end
        on(opts, "--user NAME", "as root: run the subject as this user (mallard stays root)") do |v|
          @subject[:user] = v
        end
      end

      def job_options(opts)
        on(opts, "--jobs BACKEND", "the subject is a job worker (with --workload): #{JOB_BACKENDS.join(', ')}") do |v|
          @subject[:jobs] = job_backend(v)
        end
        on(opts, "--sidekiq", "the same as --jobs sidekiq") { @subject[:jobs] = "sidekiq" }
        on(opts, "--workload FILE", "job worker: the Ruby file that pushes jobs") { |v| @subject[:workload] = v }
        on(opts, "--mode MODE", "with --jobs solid_queue: fork or async (bin/jobs --mode), or puma (inside the " \
                                "app's Puma, SOLID_QUEUE_IN_PUMA)") do |v|
          @subject[:mode] = v
        end
        on(opts, "--redis URL", "Sidekiq or Resque: use this Redis (127.0.0.1 or unix socket) instead of one of " \
                                "mallard's own") { |v| @subject[:redis] = v }
      end

      def job_backend(name)
        return name if JOB_BACKENDS.include?(name)

        raise OptionParser::InvalidArgument, "#{name} (one of #{JOB_BACKENDS.join(', ')})"
      end

      # Read as bytes: a path that is not UTF-8 is refused by Experiments::SoakOptions#validate!, not by a crash here.
      def read_paths(file)
        paths = File.readlines(file, chomp: true, mode: "rb").map(&:strip)
                    .reject { |line| line.empty? || line.start_with?("#") }
        raise UsageError, "--paths #{file} holds no paths (one per line, # for comments)" if paths.empty?

        paths
      rescue SystemCallError => e
        raise UsageError, "cannot read --paths #{file}: #{e.message.sub(/ @ .*| - .*/, '')}"
      end
    end
  end
end

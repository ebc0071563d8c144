# frozen_string_literal: true

require "net/http"

module Mallard
  module Target
    # A directory holding config.ru (Rails included), served by Puma on a free 127.0.0.1 port: the app's own config.ru,
    # or a generated rackup that loads it and wraps it in the agent's middleware, runs an action once it has booted
    # (Allocators::AfterBoot), or both. Puma is given no config file, so it reads the app's own
    # (config/puma/production.rb or config/puma.rb) as it would in production.
    class RackApp
      # Beyond these a count is a typo, not a configuration: each worker is a whole copy of the app,
      # and a thread more than the connections mallard opens only waits.
      MAX_THREADS = 1024
      MAX_WORKERS = 256

      # Puma's master logs it once a worker serves: "- Worker 1 (PID: 4242) booted in 0.41s, phase: 0"
      # (Puma 5 and 6; Puma 4 wrote "pid" and no time).
      WORKER_BOOTED = /- Worker (\d+) \(PID: (\d+)\) booted/i

      attr_reader :url, :dir

      # A shape's tree is read this long after Puma says it is up before it is called wrong: a pool thread names
      # itself once it runs.
      SHAPE_GRACE = 2.0
      # A Puma worker tells its master it has booted just before it starts its accept loop (Puma 8's
      # cluster/worker.rb), so the last to boot may not yet accept when the load begins. Every worker is given this
      # long after the last has booted. It was added for a 2x1 tree that kept one worker idle all run; that turned out
      # to be the keep-alive split (Experiments::Soak.new_connections?), and the race is closed on the code's word
      # alone.
      ACCEPT_SETTLE = 0.5

      # @param user [SubjectUser, SubjectUser::Same] who the server runs as
      # @param shape [PumaShape, nil] compare --shape's row: its workers, threads and preload, checked once it is up
      # @param shapes [Array<PumaShape>, nil] compare --shape's rows, for the comparison's description alone
      # @raise [UsageError] a thread or worker count out of range
      # @raise [NotFound] no config.ru in dir
      def initialize(dir:, threads: 5, workers: 0, user: SubjectUser::Same, shape: nil, shapes: nil)
        @dir = File.expand_path(dir)
        @threads = checked(shape&.threads || threads, "--threads", 1..MAX_THREADS)
        @workers = checked(shape&.workers || workers, "--workers", 0..MAX_WORKERS)
        @user = user
        @shape = shape
        @shapes = shapes
        @bundle = PumaBundle.new(@dir)
        config_ru = File.join(@dir, "config.ru")
        raise NotFound, "no config.ru in #{@dir}" unless File.file?(config_ru)
      end

      # Puma's workers: 0 for single mode (--workers, or the shape's).
      attr_reader :workers

      def kind = "rack"

      # Puma's process shape is mallard's to set (compare --shape).
      def shapes? = true

      # The same app served in another shape: its own workers, threads and preload (compare --shape's rows).
      # @param shape [PumaShape]
      def shaped(shape) = RackApp.new(dir: @dir, user: @user, shape: shape)

      # Another copy of the app as it is served here, to run beside it (soak --neighbours, Experiments::Neighbours).
      def neighbour = RackApp.new(dir: @dir, threads: @threads, workers: @workers, user: @user, shape: @shape)

      # Why this app cannot be served in a shape on a Ruby, asked before any row runs: Process.warmup where the Ruby
      # has none, Pitchfork where it is not installed. nil when it can.
      # @param shape [PumaShape]
      # @param ruby [SubjectRuby] the row's
      # @return [String, nil]
      def shape_refusal(shape, ruby)
        return Pitchfork.refusal(@dir, ruby) if shape.pitchfork?
        return unless shape.after_boot == "warmup" && Allocators::AfterBoot.available(self, [ruby]) != "warmup"

        "Ruby #{ruby.version} (#{ruby.path}) has no Process.warmup (Ruby 3.3 and later): write " \
          "#{shape.workers}x#{shape.threads}-compact for a full GC and GC.compact before fork instead"
      end

      # The reforks seen in the run so far (its server's own log): nil for a shape that does not refork.
      def reforks = (tree_probe.reforks(@log_path) if @shape&.refork?)

      # The app as a comparison of shapes serves it: described by its shapes, not by counts no row runs.
      # @param shapes [Array<PumaShape>]
      def in_shapes(shapes) = RackApp.new(dir: @dir, user: @user, shapes: shapes)

      # The load counts its requests from outside, so a run without mallard's agent still measures them (what the
      # agent costs, Experiments::Compare).
      def measurable_without_agent? = true

      # The rackup Puma loads is mallard's to write: a line after the app's config.ru runs once the app has booted.
      def after_boot? = true

      # Puma's pool threads and workers, as a run's meta.json keeps them (Run::Meta#puma); nil across shapes, whose
      # rows each have their own.
      def shape_counts = (@shapes ? nil : { "threads" => @threads, "workers" => @workers })

      # Scrubbed: stored in meta.json and summaries, while @dir keeps its bytes to run the app in.
      def describe
        details = [*counts, @bundle.describe, @user.describe].compact
        "#{Text.scrub(@dir)} (#{server}, #{details.join(', ')})"
      end

      # @param run_dir [Run::Directory] where the generated rackup, any generated Gemfile and the
      #   server's log go
      # @param after_boot [String, nil] the action to run once the app has booted (Allocators::AfterBoot)
      def command(env:, run_dir:, after_boot: nil)
        port = FreePort.pick
        @url = "http://127.0.0.1:#{port}/"
        bundle_env = @bundle.prepare(run_dir)
        @log_path = run_dir.file("subject.log")
        @user.prepare(run_dir)
        rackup = rackup(run_dir, agent: !env["MALLARD_AGENT_OUT"].nil?, after_boot: after_boot)
        @shape_seen_up = @all_booted_at = nil
        argv = @shape&.pitchfork? ? pitchfork_argv(run_dir, port, rackup) : server_argv(port, rackup)
        @subject = Command.new(argv, env: env.merge(bundle_env, @user.env), chdir: @dir, log_path: @log_path,
                                     spawn_options: @user.spawn_options)
      end

      def workload(options:, run_dir:, **)
        Workload::Http.new(url: @url, options: options, run_dir: run_dir)
      end

      # Nothing of the run outlives the subject.
      def release = nil

      # Up once it answers and, in cluster mode, once every worker has booted and begun to accept (ACCEPT_SETTLE): the
      # load sent before would all go to the workers already accepting. A shape's row is up once its tree is the shape
      # asked for, read from outside (Probe::PumaTree); a tree still unlike it SHAPE_GRACE after Puma answered fails
      # the run with what it is instead.
      # @raise [SubjectFailed] the tree is not the row's shape
      def ready?
        up = (@shape&.pitchfork? || workers_accepting?) && HttpProbe.answers?(@url)
        return up unless up && @shape

        shaped_as_asked?
      end

      # What the last #ready? was still waiting for, for a boot timeout's message.
      def waiting_for
        return "no answer at #{@url}" unless HttpProbe.answers?(@url)

        "#{@url} answered, but only #{workers_booted} of #{@workers} Puma workers had booted"
      end

      private

      # What serves it: Puma, Pitchfork for a -pitchfork shape, or both across a comparison's shapes.
      def server
        pitchfork = [@shape, *@shapes].compact.map(&:pitchfork?)
        return "Puma" unless pitchfork.any?

        pitchfork.all? ? "Pitchfork" : "Puma and Pitchfork"
      end

      def counts
        return "in shapes #{@shapes.map(&:label).join(', ')}" if @shapes

        ["#{@threads} threads", "#{@workers} workers", ("preloaded" if @shape&.preloaded?)]
      end

      def shaped_as_asked?
        @shape_seen_up ||= Clock.monotonic
        problem = tree_probe.mismatch(@shape, tree_probe.read(@subject.pid, log_path: @log_path))
        return true unless problem
        raise SubjectFailed, problem if Clock.monotonic - @shape_seen_up > SHAPE_GRACE

        false
      end

      # Puma's tree, or Pitchfork's.
      def tree_probe = @shape&.pitchfork? ? Probe::PitchforkTree : Probe::PumaTree

      def checked(count, option, range)
        return count if range.cover?(count)

        raise UsageError, "#{option} must be between #{range.min} and #{range.max}, not #{count}"
      end

      # Every worker booted, ACCEPT_SETTLE ago; a single process accepts once it answers.
      def workers_accepting?
        return true unless @workers.positive?

        unless workers_booted >= @workers
          @all_booted_at = nil # one died and is booting again
          return false
        end
        @all_booted_at ||= Clock.monotonic
        Clock.monotonic - @all_booted_at >= ACCEPT_SETTLE
      end

      # Workers whose latest "booted" line names a process still alive (a worker that died and was
      # replaced is counted once its replacement boots).
      def workers_booted
        return 0 unless @workers.positive?

        latest = File.foreach(@log_path).each_with_object({}) do |line, pids|
          index, pid = line.match(WORKER_BOOTED)&.captures
          pids[index] = Integer(pid) if index
        end
        latest.values.count { |pid| File.directory?("/proc/#{pid}") }
      rescue SystemCallError
        0
      end

      # The app's own config.ru when mallard adds nothing to it. A configuration's action after boot and a shape's
      # before fork are one line each, the configuration's first (in a preloaded master both run before it forks).
      def rackup(run_dir, agent:, after_boot:)
        config_ru = File.join(@dir, "config.ru")
        actions = [after_boot, @shape&.after_boot].compact.uniq
        return config_ru unless agent || actions.any?

        code = actions.map { |action| Allocators::AfterBoot.code(action) }.join("\n") unless actions.empty?
        Rackup.write(run_dir.file("mallard.ru"), app_config_ru: config_ru, agent: agent, after_boot: code)
      end

      def server_argv(port, rackup)
        [*@bundle.executable, "--bind", "tcp://127.0.0.1:#{port}", "--threads", "#{@threads}:#{@threads}",
         "--workers", @workers.to_s, *("--preload" if @shape&.preloaded?),
         *("--fork-worker=#{@shape.refork_after}" if @shape&.fork_worker?), "--environment", "production", rackup]
      end

      # Pitchfork reads its workers, port and reforks from the file mallard writes into the run directory.
      def pitchfork_argv(run_dir, port, rackup)
        config = Pitchfork.write_config(run_dir, shape: @shape, port: port)
        [*Pitchfork.executable(@bundle.bundled?), "--config-file", config, "--env", "production", rackup]
      end
    end
  end
end

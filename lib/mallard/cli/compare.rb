# frozen_string_literal: true

module Mallard
  class CLI
    # mallard compare TARGET [--allocators LIST] [--repeat N]
    class Compare < MeasuringCommand
      BANNER = <<~TEXT.freeze
        Usage: mallard compare [options] TARGET

        The same soak under each memory configuration, --repeat times, interleaved (A B C C B A …),
        each in a fresh process and verified to have taken effect. A table of steady and peak
        memory, req/s and latency with 95% intervals against the first configuration (the
        baseline, glibc by default), and the configuration to deploy with its snippets.
        Exit status: 0 done, 64 bad usage, 65 nothing valid was measured, 130 interrupted.

        #{MeasureOptions::TARGETS}
      TEXT

      MAX_REPEAT = Experiments::Compare::MAX_ROUNDS
      # Runs a comparison may plan unless --max-runs says more: 20 rows of 3 repeats and their runs with the agent, a
      # few hours at the defaults.
      MAX_RUNS = 80
      DEFAULT_BUDGET_S = 600

      # @param app [String, nil] the app directory to use when argv names no target (`mallard demo`)
      def run(argv, app: nil)
        target = parse(argv, app)
        return 0 if help_printed?

        summary = comparison(target, argv).call
        show(summary)
        # not summary.run_dir: that copy of the path is scrubbed
        HtmlOutput.write_run(@cli[:html], @err, summary: summary, directory: @run_dir)
        summary.outcome.exit_status
      rescue UsageError
        @run_dir&.discard # refused before anything was measured: no junk run directory
        raise
      end

      private

      def defaults
        { json: false, repeat: 3, configs: nil, max_runs: MAX_RUNS }
      end

      def comparison(target, argv)
        @run_dir = run_dir = Run::Directory.create(command: "compare", out: @cli[:out])
        @err.puts "mallard: comparing #{configs.join(', ')} × #{@cli[:repeat]} on #{Text.printable(target.describe)}"
        @err.puts "mallard: run directory #{Text.printable(run_dir.path)}"
        @err.puts "mallard: #{@measure.soak.cpu_layout.description}"
        say_longest_run(target)
        Experiments::Compare.new(target: target, options: @measure.soak, configs: configs, repeat: @cli[:repeat],
                                 run_dir: run_dir, reporter: reporter, command_line: ["compare", *argv],
                                 catalog: catalog,
                                 until_resolved: @cli[:until_resolved], budget_s: @cli[:budget_s] || DEFAULT_BUDGET_S,
                                 rubies: @rubies, yjit: @yjit, suggest_gc: @cli[:gc], cross_onto: cross_onto,
                                 shapes: @shapes, like: @like)
      rescue Error
        run_dir.discard # the rows' settings could not be checked: nothing was measured, so no junk run directory
        raise
      end

      # How long the comparison will load, said before it starts: its rows crossed (configurations × Rubies × YJIT
      # modes) times --repeat, each run at least --duration (--until-decided: up to its budget), boots aside.
      def say_longest_run(target)
        runs = planned_runs(target)
        budget = @measure.soak.until_decided
        if budget
          return @err.puts format("mallard: --until-decided: each run loads until it decides, at most %.0f s: up to " \
                                  "%.1f minutes of load for the %d runs planned", budget, runs * budget / 60.0, runs)
        end

        duration = @measure.soak.duration
        return unless duration

        @err.puts format("mallard: %s: %d runs of %.0f s of load, at least %.1f minutes with their boots",
                         plan(target), runs, duration, runs * duration / 60.0)
      end

      # Every row crossed (configurations × Rubies × YJIT modes × shapes), times --repeat, and once more each with the
      # agent where the counted runs go without it (Experiments::Compare). --gc's rows, suggested once the baseline has
      # run, are not counted.
      def planned_runs(target) = rows * (@cli[:repeat] + (target.measurable_without_agent? ? 1 : 0))

      def rows = configs.size * (@rubies&.size || 1) * (@yjit&.size || 1) * (@shapes&.size || 1)

      def plan(target)
        with_agent = target.measurable_without_agent? ? " and one run each with the agent" : ""
        "#{rows} rows × #{@cli[:repeat]} repeats#{with_agent}"
      end

      # Crossed axes multiply: past --max-runs the comparison is refused before anything starts.
      def check_planned_runs(target)
        runs = planned_runs(target)
        return if runs <= @cli[:max_runs]

        raise UsageError, "#{plan(target)} is #{runs} runs, more than --max-runs #{@cli[:max_runs]}: name fewer " \
                          "rows, or raise --max-runs to run them all"
      end

      # Every configuration in the catalog unless told otherwise, or with --config or --gc the baseline and those;
      # unavailable ones stay in the table (with the package to install) but are not run. --config's come after those
      # named (--gc's after all, once the baseline's GC has suggested them).
      def configs
        own = own_configs.map(&:name)
        named + (own - named)
      end

      # The configurations --allocators names, or every one in the catalog, or with --config, --jemalloc-conf or --gc
      # the baseline (the catalog's first: own configurations come after its own).
      def named
        own = @cli[:own] || @cli.key?(:jemalloc_conf) || @cli[:gc]
        @cli[:configs] || (own ? [@measure.catalog.first.name] : @measure.catalog.names)
      end

      # --config's configurations, each checked as the command line is read, then --jemalloc-conf's.
      def own_configs
        @own_configs ||= crossed(Array(@cli[:own]).map { |text| own_config(text) }) + jemalloc_configs
      end

      def own_config(text) = Allocators::ConfigOption.parse(text, @measure.catalog)

      # --cross: each --config on every configuration --allocators names instead of its base alone, rows named by
      # their parts (jemalloc/gc-cap); nil without it.
      def cross_onto = (named.map { |name| @measure.catalog.fetch(name) } if @cli[:cross])

      def crossed(own)
        onto = cross_onto
        onto ? own.flat_map { |config| onto.map { |allocator| config.onto(allocator) } } : own
      end

      def jemalloc_configs
        return [] unless @cli.key?(:jemalloc_conf)

        Allocators::JemallocConf.configs(@measure.catalog, @cli[:jemalloc_conf]&.split(","))
      end

      # The catalog and --config's configurations.
      def catalog = (@catalog ||= @measure.catalog.including(own_configs))

      def parse(argv, app)
        operands, command = @measure.parse(parser, argv)
        return if @cli[:help]

        validate!
        @yjit = yjit_axis
        @like = like_production(command) if @cli[:like]
        target = @measure.target(app ? demo_operands(operands, command, app) : operands, command)
        target = check_shapes(target)
        @shapes, target = ModesOption.apply(target, @cli[:modes], given: @measure.given_options) if @cli[:modes]
        check_planned_runs(target)
        @measure.check_outputs!(@cli)
        target
      rescue OptionParser::ParseError, UsageError => e
        raise UsageError, "compare: #{e.message} (see `mallard compare --help`)"
      end

      # --like: production's conditions read, and what the lab can take of them set, before the target is made.
      def like_production(command)
        LikeOption.new(prometheus: @cli[:prometheus], selector: @cli[:like])
                  .apply(@measure, lab_conditions, given: @measure.given_options + (@cli[:shapes] ? ["--shape"] : []),
                                                   copies: @measure.app_directory?(command))
      end

      # The comparison as the command line set it: its Ruby, CPUs, Puma's counts, the baseline's malloc and its paths.
      def lab_conditions
        Summary::Conditions.new(ruby: @measure.soak.subject_ruby.version, cpus: @measure.soak.cpu_layout&.subject&.size,
                                threads: @measure.threads, workers: @measure.workers,
                                malloc: catalog.fetch(configs.first).malloc, rate: @measure.soak.rate,
                                trees_per_host: 1 + @measure.soak.neighbours.to_i,
                                mix: Analysis::RequestMix.of_paths(@measure.soak.paths))
      end

      def validate!
        unless @cli[:repeat].between?(1, MAX_REPEAT)
          raise UsageError, "--repeat must be between 1 and #{MAX_REPEAT}, not #{@cli[:repeat]}"
        end
        raise UsageError, "--allocators lists no configuration; name one or more, or leave it out" if configs.empty?

        check_resolution
        # Each row's soak would ramp on its own and load its configuration differently: the rows must share a load.
        if @measure.soak.concurrency == "auto"
          raise UsageError, "--concurrency auto is for soak (its ramp finds one app's load); compare's rows need " \
                            "one load: run `mallard soak --concurrency auto` and give compare the number it chose"
        end
        @rubies = rubies(@cli[:rubies]) if @cli[:rubies]
        if @cli[:cross] && Array(@cli[:own]).empty? && !@cli[:gc]
          raise UsageError, "--cross runs --config and --gc sets on every configuration --allocators names: give one"
        end

        configs.each { |name| catalog.fetch(name) } # a name twice is an A/A row, not a typo
      end

      def check_resolution
        pct = @cli[:until_resolved]
        if pct && !(pct.finite? && pct.positive? && pct < 100)
          raise UsageError, "--until-resolved takes a half-width in points, more than 0 and under 100, not #{pct}"
        end
        return unless @cli[:budget_s] && pct.nil?

        raise UsageError, "--budget goes with --until-resolved (it bounds the repeats that adds)"
      end

      # --yjit off,on,16,32: an axis of rows, off, on and code region sizes in MiB (a single mode applies to every row,
      # as in soak). Each Ruby is asked whether it takes them before anything runs (Experiments::Compare).
      def yjit_axis
        modes = @measure.soak.yjit.to_s.split(",")
        return if modes.size < 2

        unless modes.uniq == modes && modes.all? { |mode| YjitMode.valid?(mode) }
          raise UsageError, "--yjit takes on, off, code region sizes in MiB (1 to #{YjitMode::MAX_MIB}) or a list " \
                            "of them, each once, not #{@measure.soak.yjit}"
        end

        @measure.soak.yjit = nil
        modes
      end

      # --shape 1x5,2x5,2x5-nopreload: each row served in each Puma shape, the rows' own workers, threads and preload.
      # Refused before anything starts for a target whose process tree is not mallard's to shape (a command, a job
      # worker), beside --workers or --threads (which a shape sets), and without --rate: in the closed loop each shape
      # would be loaded at its own pace (a 2x5 tree answers faster than a 1x5, so it is sent more), and its memory would
      # be that of more requests in flight and more garbage made per second, not of its shape. The open loop offers
      # every row the same requests per second; a row that cannot serve them fails as saturated, with what it took.
      # @return the target, described by its shapes when there are any
      def check_shapes(target)
        return target unless @cli[:shapes]

        unless target.shapes?
          raise UsageError, "--shape applies to an app directory served by Puma, not a #{target.kind} target"
        end

        given = %w[--workers --threads].select { |option| @measure.given?(option) }
        raise UsageError, "--shape sets each row's workers and threads: drop #{given.join(' and ')}" if given.any?
        unless @measure.soak.rate
          raise UsageError, "--shape compares shapes at one offered load: give --rate N (requests a second)"
        end

        @shapes = shape_axis
        target.in_shapes(@shapes)
      end

      def shape_axis
        shapes = @cli[:shapes].map { |text| PumaShape.parse(text) }
        raise UsageError, "--shape names a shape twice: #{@cli[:shapes].join(',')}" if shapes.uniq.size < shapes.size

        shapes
      end

      # --rubies NAME=PATH,...: each checked as --ruby is, before anything starts.
      def rubies(list)
        raise UsageError, "give --ruby or --rubies, not both" if @measure.soak.ruby

        pairs = list.to_h do |item|
          name, path = item.split("=", 2)
          raise UsageError, "--rubies takes NAME=PATH,NAME=PATH, not #{item}" if name.to_s.empty? || path.to_s.empty?

          [name, path]
        end
        raise UsageError, "--rubies names a Ruby twice: #{list.join(',')}" if pairs.size < list.size

        pairs.transform_values { |path| Target::SubjectRuby.resolve(path) }
      end

      # The demo measures its own app: a target given to it would be measured instead, or refused late.
      def demo_operands(operands, command, app)
        return [app] if operands.empty? && command.nil?

        raise UsageError, "demo runs on its bundled app; to measure your own, use `mallard compare TARGET`"
      end

      def parser
        Parser.new do |opts|
          opts.banner = BANNER
          @measure.define(opts)
          opts.on("--allocators LIST", Array, "configurations to compare, baseline first (default: all)") do |list|
            @cli[:configs] = list
          end
          define_config(opts)
          define_axes(opts)
          opts.on("--repeat N", Integer, "runs per configuration (default 3)") { |v| @cli[:repeat] = v }
          opts.on("--max-runs N", Integer, "refuse a comparison planning more runs than this: rows × --repeat, " \
                                           "one each with the agent (default #{MAX_RUNS})") { |v| @cli[:max_runs] = v }
          opts.on("--until-resolved PCT", Float, "add interleaved repeats until every memory and CPU interval " \
                                                 "against the baseline is narrower than ±PCT points") do |v|
            @cli[:until_resolved] = v
          end
          opts.on("--budget DURATION", "with --until-resolved: stop adding repeats after this long " \
                                       "(default 10m)") { |v| @cli[:budget_s] = duration(v) }
          @measure.define_until_decided(opts)
          @measure.define_output(opts, @cli, "compare")
        end
      end

      def define_axes(opts)
        opts.on("--rubies LIST", Array, "NAME=PATH,...: every configuration on each Ruby (rows NAME/CONFIG)") do |list|
          @cli[:rubies] = list
        end
        opts.on("--shape LIST", Array, "Puma shapes WxT (workers × threads), preloaded unless -nopreload; " \
                                       "-refork[=N] (fork_worker), -warmup or -compact before fork, -pitchfork[=N] " \
                                       "(Pitchfork, Wx1); 0xT single mode: each configuration in each (rows " \
                                       "CONFIG/2x5); needs --rate") do |v|
          @cli[:shapes] = v
        end
        opts.on("--modes LIST", Array, "with --jobs solid_queue: Solid Queue's modes, fork, async and puma (inside " \
                                       "the app's Puma), each configuration in each (rows CONFIG/async)") do |v|
          @cli[:modes] = v
        end
        opts.on("--like SELECTOR", "set the lab as production's processes run (their threads, workers, CPUs, request " \
                                   "mix), read from their exporter in Prometheus (--prometheus); say what still " \
                                   "differs") do |v|
          @cli[:like] = v
        end
        opts.on("--prometheus URL", "the Prometheus --like reads") { |v| @cli[:prometheus] = v }
      end

      def define_config(opts)
        opts.on("--gc", "soak the baseline first and add the RUBY_GC_* variable sets its own GC suggests as rows, " \
                        "each with why") { @cli[:gc] = true }
        opts.on("--config NAME=[BASE,]VAR=VALUE[,VAR=VALUE…]",
                "a configuration of your own: environment variables on BASE (default glibc), e.g. " \
                "gc-cap=RUBY_GC_HEAP_GROWTH_FACTOR=1.1, and after_boot=warmup or compact, a line once the app has " \
                "booted; repeatable, after --allocators' rows, each checked in the app's Ruby before any row " \
                "runs") do |text|
          (@cli[:own] ||= []) << text
        end
        opts.on("--cross", "run each --config and --gc set on every configuration --allocators names (rows " \
                           "jemalloc/gc-cap), not on its base alone") { @cli[:cross] = true }
        opts.on("--jemalloc-conf [LIST]", Allocators::JemallocConf::LIST,
                "rows on jemalloc for MALLOC_CONF settings, each verified in the process: " \
                "#{Allocators::JemallocConf::ROWS.keys.join(',')} (default: all)") do |list|
          @cli[:jemalloc_conf] = list
        end
      end

      def reporter
        @cli[:json] ? Report::SilentProgress.new : Report::CompareProgress.new(@err)
      end
    end
  end
end

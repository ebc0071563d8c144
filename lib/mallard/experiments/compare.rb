# frozen_string_literal: true

module Mallard
  module Experiments
    # The same soak under each memory configuration, repeated, in interleaved rounds that turn back each time
    # (A B C C B A A B C …) so that machine drift hits every configuration alike, each run in a fresh process and its
    # own run directory.
    #
    # A configuration that is missing, does not take effect, crashes the subject or fails its requests
    # becomes a row marked so — never a result — and the comparison goes on with the rest. A run that is no
    # valid measurement (a worker that served nothing) is shown, left out of the statistics, and run again
    # while the retries allow. A signal stops the whole comparison: the runs finished so far are kept and
    # the summary says it was interrupted.
    #
    # The counted runs carry no mallard code: the app's memory, CPU and work are read from outside it, since the
    # agent's own objects move what it measures (a small app's heap, its GCs, its req/s). Each configuration runs once
    # more with the agent, in a round before the others, which verifies it inside the process (YJIT's mode, jemalloc's
    # options) and explains its figures (verdicts, live set, ledger); set against the runs without it, those runs
    # measure what the agent costs (Analysis::AgentCost). A job worker's jobs are counted by the agent, so there every
    # run carries it.
    class Compare
      # One row of the comparison while it is measured.
      # ruby: the Target::SubjectRuby it runs on with --rubies (nil: the soak options' own).
      # yjit: "on", "off" or a code region size in MiB ("16") with --yjit off,on,16 (nil: the soak options' own).
      # checks: its RUBY_GC_* variables and MALLOC_CONF as its Ruby and allocator took them (Probe::SettingsCheck).
      # instrumented: its run with the agent (Summary::RunFigures), when the counted runs are without it.
      # shape: the PumaShape it serves the app in with --shape (nil: the target's own workers and threads).
      # reforks: for a shape that reforks (-refork, -pitchfork), the reforks its server logged in each of its runs, by
      # the run's directory (RunFigures#run_dir); none is a finding, not a failure.
      Row = Struct.new(:label, :allocator, :runs, :invalid_runs, :failure, :ruby, :yjit, :checks, :instrumented,
                       :shape, :reforks) do
        def initialize(label, allocator, ruby = nil, yjit = nil, shape = nil)
          super(label, allocator, [], [], nil, ruby, yjit, [], [], shape, {})
          self.failure = { reason: refusal, output_tail: [] } if refusal
        end

        # A Ruby linked with an allocator runs that one whatever the environment asks: glibc cannot be had of a
        # jemalloc-linked Ruby, so the row is refused before anything runs, not measured as something else.
        def refusal
          linked = ruby&.linked_allocator
          return if linked.nil? || linked == allocator.malloc

          "#{ruby.path} is linked with #{linked}: it cannot run #{allocator.name} (#{allocator.malloc}'s malloc)"
        end

        def measurable?
          allocator.available? && failure.nil?
        end

        # The row a run is of, whichever kind of run (Instrumented#row).
        def row = self
      end

      # A row's run with the agent, where its counted runs are without it.
      Instrumented = Struct.new(:row) do
        def label = "#{row.label} with the agent"
        def measurable? = row.measurable?
        def allocator = row.allocator
        def ruby = row.ruby
        def yjit = row.yjit
        def shape = row.shape
      end

      # Where compare --gc soaks the baseline for its GC, inside the comparison's run directory.
      GC_BASELINE = "gc-baseline"

      # Runs go one after another: more rounds than this is days of soaking, a typo rather than a plan. --repeat's
      # limit, and how far --until-resolved may go.
      MAX_ROUNDS = 100

      # @param configs [Array<String>] catalog names; a repeated name is a second, identical row (A/A)
      # @param command_line [Array<String>] mallard's own arguments, for meta.json
      # @param until_resolved [Float, nil] add interleaved rounds until every memory and CPU interval against the
      #   baseline is narrower than ±this many points (Analysis::Resolution), or budget_s is spent
      # @param rubies [Hash{String=>Target::SubjectRuby}, nil] --rubies: every configuration on each, rows NAME/CONFIG
      # @param yjit [Array<String>, nil] --yjit off,on,16: every row with YJIT off, on and at each code region size
      #   (rows …/yjit-off, …/yjit-on, …/yjit-16; YjitMode)
      # @param suggest_gc [Boolean] --gc: soak the baseline first, and add the RUBY_GC_* sets its GC suggests as rows
      # @param cross_onto [Array<Allocators::Allocator>, nil] --cross: --gc's sets on each of these (rows
      #   jemalloc/gc-free), not on the baseline alone
      # @param shapes [Array<PumaShape>, nil] --shape 1x5,2x5: every row served in each Puma shape (rows …/2x5), each
      #   its own target (Target::RackApp#shaped) whose tree is checked from outside before the run counts
      # @param like [Summary::Like, nil] --like: production's conditions and what the lab took of them
      def initialize(target:, options:, configs:, repeat:, run_dir:, reporter:, catalog: Allocators::Catalog.default,
                     command_line: [], until_resolved: nil, budget_s: nil, rubies: nil, yjit: nil, suggest_gc: false,
                     cross_onto: nil, shapes: nil, like: nil)
        @target = target
        @like = like
        @options = options
        @rubies = rubies
        @yjit = yjit
        @shapes = shapes
        @configs = configs
        @suggest_gc = suggest_gc
        @cross_onto = cross_onto
        @rows = rows(configs, catalog)
        check_yjit
        check_shapes
        check_settings
        @spread_load = spread_load?
        @repeat = repeat
        @run_dir = run_dir
        @reporter = reporter
        @catalog = catalog
        @command_line = command_line
        @retries = Hash.new(0)
        @until_resolved = until_resolved
        @budget_s = budget_s
      end

      # @return [Summary::Compare] (also written to summary.json)
      def call
        Lifeline::Signals.guard { measure_all }
      end

      private

      def measure_all
        write_meta
        suggest_gc_rows if @suggest_gc
        @started = Clock.monotonic
        @rounds = @repeat
        @queue = rounds(1..@repeat)
        @queue.unshift(*rounds(0..0).map { |row, index| [Instrumented.new(row), index] }) if clean?
        @position = 0
        loop do
          measure(*@queue.shift) until @queue.empty? || Lifeline::Signals.received
          break if Lifeline::Signals.received || !another_round?
        end
        finish(Lifeline::Signals.received ? signalled : Run::Outcome.complete)
      rescue SignalException => e
        finish(Run::Outcome.signalled(e))
      end

      # compare --gc: the baseline soaked once with the agent before the rows, for its GC under this load; the variable
      # sets that suggests join the comparison as rows of their own on the baseline's configuration (with --cross on
      # each configuration named), crossed like the others, and are checked as they are (Analysis::GcCandidates).
      def suggest_gc_rows
        baseline = @rows.first
        summary = soak(baseline, 0, name: GC_BASELINE, agent: true)
        after_boot = Allocators::AfterBoot.available(@target, @rows.map { |row| row.ruby || @options.subject_ruby })
        gc = summary.complete? ? summary.gc : nil
        @gc_suggestions = Analysis::GcCandidates.call(gc, live_set: summary.live_set, after_boot: after_boot)
        own = suggested_configs(baseline.allocator)
        @catalog = @catalog.including(own)
        @rows = rows(@configs + own.map(&:name), @catalog)
        check_settings
        write_meta
      rescue UsageError
        raise
      rescue Error => e
        @gc_suggestions = Analysis::GcCandidates.call(nil)
        @reporter.run_failed(label: GC_BASELINE, reason: e.message)
      end

      # --gc's suggested sets on the baseline's configuration, or with --cross on each configuration named.
      def suggested_configs(baseline)
        own = @gc_suggestions.select(&:suggested).map { |found| baseline.configured(found.name, found.settings) }
        @cross_onto ? own.product(@cross_onto).map { |config, allocator| config.onto(allocator) } : own
      end

      # Whether the counted runs go without the agent: where the target's work is counted from outside.
      def clean? = @target.measurable_without_agent?

      # Whether a run carries the agent.
      def instrumented?(row) = row.is_a?(Instrumented) || !clean?

      # Odd rounds run the rows in order, even rounds back to front. In rounds all in one order a steady drift of the
      # machine's speed always falls on the same side of a pair and reads as a difference (an A/A comparison of the
      # stable fixture, 3 rounds of 3 s, once came out at CPU per request -15.1%, -25.7 ... -3.0; its cause was not
      # found). Turned back, such a drift falls on each configuration alike over two rounds.
      def rounds(indexes)
        available = @rows.select { |row| row.allocator.available? }
        indexes.flat_map { |index| (index.odd? ? available : available.reverse).product([index]) }
      end

      # --until-resolved: one more interleaved round while an interval is too wide and the budget allows a round as
      # long as the average so far.
      def another_round?
        return false unless @until_resolved && @rounds < MAX_ROUNDS

        so_far = summary(Run::Outcome.complete)
        elapsed = Clock.monotonic - @started
        return false if so_far.resolution.resolved || elapsed + (elapsed / @rounds) > @budget_s

        @rounds += 1
        @reporter.round_added(round: @rounds, summary: so_far)
        @queue = rounds(@rounds..@rounds)
        true
      end

      def signalled
        Run::Outcome.interrupted("signal", "mallard received #{Lifeline::Signals.received}")
      end

      def rows(configs, catalog)
        rubies = @rubies || { nil => nil }
        rubies.flat_map do |ruby_name, ruby|
          label(configs).flat_map do |row_label, name|
            (@yjit || [nil]).product(@shapes || [nil]).map do |mode, shape|
              Row.new([ruby_name, row_label, mode && YjitMode.label(mode), shape&.label].compact.join("/"),
                      catalog.fetch(name), ruby, mode, shape)
            end
          end
        end
      end

      # --yjit's modes on each row's Ruby (--rubies), asked before any row runs: a Ruby without YJIT, or one that
      # refuses a size, would run the row as something else.
      # @raise [UsageError] naming the Ruby and why
      def check_yjit
        asked = @rows.map { |row| [row.yjit || @options.yjit, row.ruby || @options.subject_ruby] }.select(&:first).uniq
        asked.each do |mode, ruby|
          refusal = SoakOptions.yjit_refusal(mode, ruby)
          raise UsageError, "--yjit #{mode}: #{refusal}" if refusal
        end
      end

      # Each shape on its row's Ruby, asked before any row runs: warmup before fork where the Ruby has no
      # Process.warmup, Pitchfork where it is not installed (Target::RackApp#shape_refusal).
      # @raise [UsageError] naming the shape and why
      def check_shapes
        @rows.map { |row| [row.shape, row.ruby || @options.subject_ruby] }.select(&:first).uniq.each do |shape, ruby|
          refusal = @target.shape_refusal(shape, ruby)
          raise UsageError, "--shape #{shape.label}: #{refusal}" if refusal
        end
      end

      # Each row's RUBY_GC_* variables and MALLOC_CONF as its own Ruby and allocator take them, asked before any row
      # runs: a setting that would not take effect is refused, never measured as if it had.
      # @raise [UsageError] naming each setting not taken
      def check_settings
        Allocators::AfterBoot.check_target(@rows, @target)
        asked = {}
        @rows.each do |row|
          ruby = row.ruby || @options.subject_ruby
          allocator = row.allocator
          next unless allocator.available?

          row.checks = asked[[allocator.name, ruby.path]] ||=
            Probe::SettingsCheck.call(ruby: ruby.path, settings: allocator.settings, preload: allocator.library_path,
                                      malloc: ruby.linked_allocator || allocator.malloc,
                                      after_boot: allocator.after_boot)
        end
        refused = @rows.flat_map { |row| row.checks.reject(&:taken?).map { |check| [row, check] } }
        raise UsageError, Allocators::ConfigOption.refusal(refused) unless refused.empty?
      end

      def label(names)
        seen = Hash.new(0)
        names.map do |name|
          seen[name] += 1
          [seen[name] == 1 ? name : "#{name}##{seen[name]}", name]
        end
      end

      def measure(row, index)
        return unless row.measurable?

        @position += 1
        @reporter.run_started(label: row.label, repeat: index, position: @position,
                              total: @position + @queue.count { |queued, _| queued.measurable? })
        record(row, index, soak(row, index))
      rescue SubjectFailed => e
        fail_row(row, e.message, e.output_tail)
      rescue UsageError
        raise
      rescue Error => e
        fail_row(row, e.message, [])
      end

      def record(row, index, summary)
        return if summary.outcome.signalled? # the comparison stops; this run stays in its directory
        return fail_row(row, summary.reason, [], saturation: summary.saturation) unless summary.complete?

        not_taken = instrumented?(row) && not_taken(row.row, summary)
        return fail_row(row, not_taken, [], counted: true) if not_taken
        return record_instrumented(row, summary) if row.is_a?(Instrumented)

        figures = Analysis::RunFigures.of(summary)
        return accept(row, figures, summary) if summary.valid?

        row.invalid_runs << figures
        @reporter.run_invalid(label: row.label, problems: figures.problems)
        retry_run(row, index)
      end

      # What the run's process shows did not take effect: YJIT's mode, a MALLOC_CONF pair jemalloc did not take, or an
      # action after boot that compacted nothing (what jemalloc read and the compactions go into the row's checks either
      # way).
      def not_taken(row, summary)
        inside = summary.ruby || {}
        mode = row.yjit || @options.yjit # an axis's, or one mode for every row
        yjit = mode && Target::SubjectRuby.yjit_mismatch(mode, inside)
        return yjit if yjit

        row.checks, pairs = Allocators::JemallocConf.confirm(row.checks, inside["jemalloc_options"])
        row.checks, not_run = Allocators::AfterBoot.confirm(row.checks, inside)
        problems = pairs + not_run + [before_fork_not_run(row.shape, inside)].compact
        problems.join("; ") unless problems.empty?
      end

      # A -warmup or -compact shape's action borne out as an action after boot is (Allocators::AfterBoot.confirm):
      # workers forked after it inherit the master's count of compactions, so none counted means it did not run.
      def before_fork_not_run(shape, inside)
        return unless shape&.after_boot && inside["compact_count_at_end"]&.zero?

        "#{shape.label}: #{shape.after_boot} before fork did not run in the app: no process had compacted its heap"
      end

      # A complete run with the agent: kept when it is a measurement; either way the row's counted runs go on.
      def record_instrumented(row, summary)
        @reporter.run_finished(label: row.label, summary: summary)
        figures = Analysis::RunFigures.of(summary)
        return row.row.instrumented << figures if figures.valid?

        @reporter.run_invalid(label: row.label, problems: figures.problems)
        instrumented_lost(row, figures.problems.join("; "))
      end

      # A run with the agent that was no measurement is run once more, at the end: a short run is easily spoilt (a
      # burst of other work on the machine), and without it the row has no explanation, nor a pair for the agent's cost.
      def instrumented_lost(row, reason)
        @instrumented_lost = reason
        retry_run(row, 0) if @retries[row.label].zero?
      end

      def accept(row, figures, summary)
        row.runs << figures
        @reporter.run_finished(label: row.label, summary: summary)
      end

      # An invalid run is measured again, up to --repeat more times per configuration, at the end of the
      # queue so the interleaving holds.
      def retry_run(row, index)
        return if @retries[row.label] >= @repeat

        @retries[row.label] += 1
        @queue << [row, index]
      end

      def soak(row, index, name: run_name(row, index), agent: instrumented?(row))
        run_dir = Run::Directory.create(command: "soak", out: @run_dir.file(name))
        options = @options.dup.tap do |o|
          o.allocator = row.allocator.name
          o.agent = agent
          # Without the agent there is no live set to decide, nor a request count before the load ends: --duration.
          o.until_decided = nil unless o.agent
          o.subject_ruby = row.ruby if row.ruby
          o.yjit = row.yjit if row.yjit
          o.reconnect = true if @spread_load
        end
        target = row.shape ? @target.shaped(row.shape) : @target
        summary = Soak.new(target: target, options: options, run_dir: run_dir, reporter: @reporter, catalog: @catalog,
                           command_line: @command_line).call
        record_reforks(row.row, target, summary)
        summary
      end

      # Where any row's Puma is loaded a request a connection (Soak.new_connections?: --workers, a --shape or --like's
      # workers, more than one), every row is, so that the rows compare: a 1x5 row beside 2x5 ones too.
      def spread_load?
        trees = @shapes ? @shapes.grep(PumaShape).map { |shape| @target.shaped(shape) } : [@target]
        trees.any? { |tree| Soak.new_connections?(tree) }
      end

      # A reforking shape's reforks in the run, by its server's log, kept by the run's directory.
      def record_reforks(row, target, summary)
        reforks = target.reforks if row.shape
        row.reforks[summary.run_dir] = reforks if reforks
      end

      def run_name(row, index)
        attempt = @retries[row.label].positive? ? "-retry#{@retries[row.label]}" : ""
        return "#{row.row.label.tr('#', '-')}-with-agent#{attempt}" if row.is_a?(Instrumented)

        "#{row.label.tr('#', '-')}-#{index}#{attempt}"
      end

      # A failed run with the agent leaves the row unexplained and the agent's cost a pair short; the row's counted
      # runs still stand. A configuration its run with the agent showed not taken fails the row (counted: true).
      # saturation: the load was more than the app could take (Summary::Saturation), kept for what it would take.
      def fail_row(row, reason, output_tail, counted: false, saturation: nil)
        if row.is_a?(Instrumented) && !counted
          instrumented_lost(row, reason)
        else
          row.row.failure = { reason: reason, output_tail: output_tail, saturation: saturation }
        end
        @reporter.run_failed(label: row.label, reason: reason)
      end

      def finish(outcome)
        Lifeline::Signals.deferred do
          summary = @run_dir.save_summary(summary(outcome))
          @reporter.finished(summary)
          summary
        end
      end

      def summary(outcome)
        Analysis::CompareSummary.call(rows: @rows.map { |row| plain_row(row) }, outcome: outcome,
                                      run_dir: Text.scrub(@run_dir.path), target: Run::TargetInfo.of(@target),
                                      until_resolved: @until_resolved, cpu_layout: @options.cpu_layout,
                                      production_cpus: @options.production_cpus,
                                      figures_from: clean? ? "clean" : "instrumented",
                                      instrumented_lost: @instrumented_lost, gc_suggestions: @gc_suggestions,
                                      like: @like)
      end

      def plain_row(row)
        allocator = row.allocator
        failure = row.failure || {}
        Summary::Row.new(name: row.label, allocator: allocator.name, available: allocator.available?,
                         unavailable_reason: allocator.unavailable_reason,
                         verified: row.failure.nil? && row.runs.any?, failed: failure[:reason],
                         output_tail: failure[:output_tail], **runs_of(row),
                         deploy_effort: Allocators::DeployEffort.of(row, baseline: @rows.first),
                         ruby: row.ruby&.to_h, yjit: row.yjit, **axis_of(row.shape),
                         settings_checks: row.checks, settings: allocator.settings, base: allocator.base,
                         saturation: failure[:saturation])
      end

      # A row's shape, or with --modes its Solid Queue mode, which rides the rows as a shape would.
      def axis_of(shape) = shape.is_a?(SolidQueueMode) ? { jobs_mode: shape.label } : { shape: shape&.label }

      # A row's runs of each kind; a reforking shape's each with the reforks its server logged (0: none in that run,
      # a finding).
      def runs_of(row)
        { runs: row.runs, invalid_runs: row.invalid_runs,
          instrumented_runs: row.instrumented }.transform_values do |runs|
          row.reforks.empty? ? runs : runs.map { |run| run.with(reforks: row.reforks[run.run_dir]) }
        end
      end

      def write_meta
        @run_dir.write_json("meta.json", Run::Meta.build(command: "compare", argv: @command_line, target: @target,
                                                         options: @options, configs: @rows.map(&:label),
                                                         cpu_layout: @options.cpu_layout,
                                                         until_resolved: @until_resolved, budget_s: @budget_s,
                                                         repeat: @repeat, rubies: @rubies&.transform_values(&:to_h)))
      end
    end
  end
end

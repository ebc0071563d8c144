# frozen_string_literal: true

module Mallard
  class CLI
    # mallard budget [APP] [--file PATH] [--repeat N] [--update]
    class Budget < MeasuringCommand
      BANNER = <<~TEXT.freeze
        Usage: mallard budget [options] [APP]

        A memory budget for CI: each entry of the budget file (#{Run::BudgetFile::NAME} in APP, the Rack app
        directory served by Puma; default .) is soaked --repeat times with the agent, and each figure it guards
        (steady memory as summed PSS, allocations per request, the live slots at the end) is set against the
        baseline's repeated values the file keeps, by the one change rule (Welch's 95% interval on logs). A
        figure fails only when the WHOLE interval of its change lies above its allowance (max_increase_pct);
        without an interval (a single repeat) it never fails, and says so. --update measures and rewrites the
        baselines deliberately (on the main branch; commit the file). The soaks and the summary are kept in a
        run directory (`mallard report DIR`).
        Exit status: 0 within budget (or updated), 1 over budget, 64 bad usage or a bad budget file (refused
        before anything starts), 65 a soak that measured nothing, 69 the app or the load failed, 130 interrupted.
      TEXT

      MAX_REPEAT = 20

      def run(argv)
        target, budget = parse(argv)
        return 0 if help_printed?

        run_dir = Run::Directory.create(command: "budget", out: @cli[:out])
        @err.puts "mallard: run directory #{Text.printable(run_dir.path)}"
        summary = measure(target, budget, run_dir, argv)
        show(summary)
        summary.complete? && summary.over? ? 1 : summary.outcome.exit_status
      end

      private

      def defaults
        { json: false, repeat: 3, update: false }
      end

      def measure(target, budget, run_dir, argv)
        settings = { app: @app, file: @cli[:file], update: @cli[:update], repeat: @cli[:repeat] }
        Experiments::Budget.new(target: target, options: @measure.soak, budget: budget, settings: settings,
                                run_dir: run_dir, reporter: reporter, catalog: @measure.catalog,
                                command_line: ["budget", *argv]).call
      end

      # @return [Array(Target, Run::BudgetFile)] everything checked before anything starts
      def parse(argv)
        operands, command = @measure.parse(parser, argv)
        return if @cli[:help]

        @app = operands.first || "."
        target = @measure.target(operands.empty? && command.nil? ? ["."] : operands, command)
        check!(target)
        @measure.check_outputs!(@cli)
        [target, budget]
      rescue OptionParser::ParseError, UsageError => e
        raise UsageError, "budget: #{e.message} (see `mallard budget --help`)"
      end

      def check!(target)
        raise UsageError, "budget applies to an app directory served by Puma, not a #{target.kind} target" \
          unless target.shapes?
        raise UsageError, "--repeat must be between 1 and #{MAX_REPEAT}, not #{@cli[:repeat]}" \
          unless @cli[:repeat].between?(1, MAX_REPEAT)
        raise UsageError, "--max-increase must be a positive %, not #{@cli[:allowance]}" \
          unless @cli[:allowance].nil? || @cli[:allowance].positive?
      end

      # The budget file as committed; a first --update makes one, an entry per --path (default /).
      def budget
        @cli[:file] ||= File.join(@app, Run::BudgetFile::NAME)
        exists = File.exist?(@cli[:file])
        if exists && (@measure.given?("--path") || @measure.given?("--paths"))
          raise UsageError, "the budget file's entries say which paths are loaded: drop --path and --paths (or edit " \
                            "#{@cli[:file]})"
        end
        return Run::BudgetFile.read(@cli[:file]) if exists || !@cli[:update]

        Run::BudgetFile.fresh(@measure.soak.paths, @cli[:allowance], Analysis::BudgetFigures::NAMES)
      end

      def parser
        Parser.new do |opts|
          opts.banner = BANNER
          @measure.define(opts)
          budget_options(opts)
          opts.on("--out DIR", "run directory (default .mallard/runs/<time>-budget)") { |v| @cli[:out] = v }
          opts.on("--json", "print the summary as JSON") { @cli[:json] = true }
          opts.on("-h", "--help", "show this help") { @cli[:help] = opts.help }
        end
      end

      def budget_options(opts)
        opts.on("--file PATH", "the budget file (default APP/#{Run::BudgetFile::NAME})") { |v| @cli[:file] = v }
        opts.on("--repeat N", Integer, "soaks of each entry (default 3; fewer than 2 gives no interval, which never " \
                                       "fails)") { |v| @cli[:repeat] = v }
        opts.on("--update", "measure and rewrite the file's baselines (on the main branch; commit the file)") do
          @cli[:update] = true
        end
        opts.on("--max-increase PCT", Float, "a new file's allowance for every figure, in % (default: " \
                                             "#{allowances})") do |v|
          @cli[:allowance] = v
        end
      end

      def allowances
        Analysis::BudgetFigures::NAMES.map { |name| "#{name} #{format('%g', Run::BudgetFile.allowance(name))}" }
                                      .join(", ")
      end

      def reporter
        @cli[:json] ? Report::SilentProgress.new : Report::CompareProgress.new(@err)
      end
    end
  end
end

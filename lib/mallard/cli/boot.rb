# frozen_string_literal: true

module Mallard
  class CLI
    # mallard boot [DIR] [--repeat N] [--environment ENV] [--cutoff MB] [--workers N] [--allocator NAME]
    class Boot < Command
      BANNER = <<~TEXT
        Usage: mallard boot [options] [DIR]

        What each gem and require costs at boot: the app in DIR (default: here) is booted --repeat times,
        each in a fresh Ruby, never in mallard's own. A Rails app (config/environment.rb) boots whole, in
        --environment (a placeholder SECRET_KEY_BASE stands in if none is set); any other Bundler app runs
        Bundler.require. Prints the require tree (median RSS per require with its 95% interval, split into
        file-backed, Ruby heap, malloc and the unexplained rest; "also required by"), the per-gem rollup,
        and with --workers how much a forked worker still shares with its master. --objects adds one boot
        with allocation tracing (about twice as slow as a boot): which file's objects are still alive after it.
        Exit status: 0 done, 64 bad usage (refused before anything starts), 69 the app failed to boot,
        130 interrupted.
      TEXT

      def run(argv)
        app = parse(argv)
        return 0 if help_printed?

        run_dir = Run::Directory.create(command: "boot", out: @cli[:out])
        summary = Experiments::Boot.new(app: app, options: @options, run_dir: run_dir,
                                        reporter: Report::BootProgress.new(@err, quiet: @cli[:json]),
                                        command_line: ["boot", *argv]).call
        show(summary)
        HtmlOutput.write_run(@cli[:html], @err, summary: summary, directory: run_dir)
        finish(summary)
      end

      private

      def parse(argv)
        @options = Experiments::Boot::Options.defaults
        operands = parser.parse(argv)
        return if @cli[:help]
        raise UsageError, "give one app directory (or none, for the current one)" if operands.size > 1

        Allocators::Catalog.default.fetch(@options.allocator) if @options.allocator
        @options.subject_ruby = Target::SubjectRuby.resolve(@options.ruby) if @options.ruby
        HtmlOutput.check!(@cli[:html])
        Target::BootApp.new(operands.first || ".", environment: @options.environment)
      rescue OptionParser::ParseError, UsageError => e
        raise UsageError, "boot: #{e.message} (see `mallard boot --help`)"
      end

      def parser
        Parser.new do |opts|
          opts.banner = BANNER
          define_measure(opts)
          opts.on("--out DIR", "run directory (default .mallard/runs/<time>-boot)") { |v| @cli[:out] = v }
          define_view_options(opts)
        end
      end

      def define_measure(opts)
        opts.on("--repeat N", Integer, "boots to measure, 1-100 (default 5)") do |v|
          @options.repeat = within(v, 1, 100)
        end
        opts.on("--environment ENV", "RAILS_ENV / RACK_ENV (default production)") { |v| @options.environment = v }
        opts.on("--cutoff MB", Float, "hide requires under MB (default 0.3)") do |v|
          @options.cutoff_mb = within(v, 0, 1e6)
        end
        opts.on("--workers N", Integer, "fork N workers after the boot, as Puma's preload does (default 0)") do |v|
          @options.workers = within(v, 0, 64)
        end
        opts.on("--allocator NAME", "boot under this memory configuration") { |v| @options.allocator = v }
        opts.on("--ruby PATH", "boot on this Ruby (its bundle and gems)") { |v| @options.ruby = v }
        opts.on("--objects", "one more boot with allocation tracing: objects retained by file and gem") do
          @options.objects = true
        end
        opts.on("--timeout S", Float, "give up on a boot after S seconds (default 300)") do |v|
          @options.timeout = within(v, 1, 86_400)
        end
      end

      def within(value, low, high)
        return value if value.between?(low, high)

        raise OptionParser::InvalidArgument, "#{value} (give #{low} to #{high})"
      end

      def finish(summary)
        @err.puts "mallard: boot: #{summary.reason}" unless summary.complete? || @cli[:json]
        summary.outcome.exit_status
      end
    end
  end
end

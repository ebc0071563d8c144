# frozen_string_literal: true

require "optparse"
require_relative "cli/parser"
require_relative "cli/command"
require_relative "cli/doctor"
require_relative "cli/target_choice"
require_relative "cli/measure_options"
require_relative "cli/measuring_command"
require_relative "cli/soak"
require_relative "cli/gc"
require_relative "cli/like_option"
require_relative "cli/modes_option"
require_relative "cli/compare"
require_relative "cli/demo"
require_relative "cli/html_output"
require_relative "cli/report"
require_relative "cli/diff"
require_relative "cli/boot"
require_relative "cli/heap"
require_relative "cli/fleet"
require_relative "cli/plan"
require_relative "cli/budget"

module Mallard
  # The command line. #run returns an exit status and never calls exit, so tests and other
  # programs can drive it like a function.
  class CLI
    COMMANDS = { "doctor" => CLI::Doctor, "boot" => CLI::Boot, "soak" => CLI::Soak, "gc" => CLI::Gc,
                 "compare" => CLI::Compare, "demo" => CLI::Demo, "report" => CLI::ReportCommand,
                 "diff" => CLI::Diff, "heap" => CLI::Heap, "fleet" => CLI::Fleet,
                 "plan" => CLI::Plan, "budget" => CLI::Budget }.freeze
    USAGE = <<~TEXT
      Usage: mallard COMMAND [options]

      Commands:
        doctor [PID | -- CMD ARGS]   which allocator and memory settings a Ruby process really runs with
        boot [DIR]                   what each gem and require costs at boot: a tree, repeated, decomposed
        soak DIR | --url URL -- CMD | --script FILE
                                     memory over time under real load: leak or plateau, throughput, GC
        gc DIR | --url URL -- CMD | --script FILE
                                     the same run, GC first: pauses, causes, the live set, RUBY_GC_*
        heap DIR | --url URL -- CMD | diff A B C
                                     which allocation sites keep memory alive: three heap dumps, compared
        compare TARGET [--allocators LIST] [--repeat N]
                                     the same soak under each memory configuration: which to deploy
        plan DIR --memory-limit SIZE --rate N
                                     how many Puma workers fit a memory limit: predicted, then run and checked
        budget [APP] [--update] [--repeat N]
                                     a memory budget for CI: each figure gated on its interval against the baseline
        demo                         compare on the bundled example app (3 to 5 minutes;
                                     --sidekiq: the bundled job worker)
        report RUN_DIR [--json] [--html FILE]
                                     show a stored soak or comparison again, even an interrupted one
        diff RUN_A RUN_B [--fail-over PCT]
                                     before/after: the change between two runs, with its 95% interval
        fleet --prometheus URL --a SELECTOR --b SELECTOR [--since 1h]
                                     two sets of production processes compared from Prometheus

      Global options: --debug (show backtraces), --version, --help
      Run `mallard COMMAND --help` for a command's options.
    TEXT

    def run(argv = ARGV, out: $stdout, err: $stderr, env: ENV)
      own, passed = split_at_separator(argv)
      debug = own.delete("--debug")
      dispatch(own, passed, out: out, err: err, env: env)
    rescue Error => e
      report_error(err, e, debug)
    rescue Interrupt
      err.puts "mallard: interrupted"
      130
    rescue StandardError => e
      report_bug(err, e, debug)
    end

    private

    # Options after `--` belong to the subject's command, never to mallard.
    def split_at_separator(argv)
      index = argv.index("--")
      index ? [argv[0...index], argv[index..]] : [argv.dup, []]
    end

    def dispatch(own, passed, out:, err:, env:)
      name = own.shift
      case name
      when "-h", "--help", "help" then out.puts(USAGE) || 0
      when "-v", "--version" then out.puts(VERSION) || 0
      when nil then raise UsageError, "no command given; try `mallard --help`"
      else
        command = COMMANDS.fetch(name) { raise UsageError, "unknown command '#{name}'; try `mallard --help`" }
        command.new(out: out, err: err, env: env).run(own + passed)
      end
    end

    # Messages quote commands, paths and output from outside, and the subject's lines are its own: each line
    # goes through Text.printable, so neither can send escape sequences to the user's terminal.
    def report_error(err, error, debug)
      err.puts "mallard: #{Text.printable_lines(error.message).join("\n")}"
      if error.is_a?(SubjectFailed) && !error.output_tail.empty?
        err.puts "  last lines of its output:"
        error.output_tail.each { |line| err.puts "  | #{Text.printable(line)}" }
      end
      err.puts error.full_message(highlight: false) if debug
      error.exit_status
    end

    # Anything not a Mallard::Error is mallard's own fault: say so, keep the trace for --debug.
    def report_bug(err, error, debug)
      err.puts "mallard: internal error: #{error.class}: #{Text.printable_lines(error.message).join("\n")}"
      err.puts debug ? error.full_message(highlight: false) : "  (run again with --debug for the backtrace)"
      Error.new.exit_status
    end
  end
end

# frozen_string_literal: true

module Mallard
  class CLI
    # mallard doctor [PID | -- CMD ARGS]
    class Doctor < Command
      WAIT_TEXT = format("%g s", Probe::Doctor::WAIT)
      BANNER = <<~TEXT
        Usage: mallard doctor [options] [PID]
               mallard doctor [options] -- CMD ARGS

        Shows the allocator a process really uses (read from /proc/PID/maps), its memory settings
        (its RUBY_GC_*, MALLOC_CONF and YJIT settings as its own Ruby takes them), threads and memory,
        then findings with advice. Without PID or CMD: this mallard process.
        With -- CMD: starts CMD, follows it to the Ruby process it starts (through runuser, sudo,
        sh -c, foreman, bundle exec), reads that one once it has settled, then stops it all.
        Exit status: 0 no errors found, 1 an error-level finding, 64 usage, 66 no such process (or
        nothing to read: a zombie, a kernel thread), 69 CMD failed to come up, 77 not permitted to
        read the process.
      TEXT

      def run(argv)
        pid, command = parse(argv)
        return 0 if help_printed?

        diagnosis = diagnose(pid, command)
        show(diagnosis)
        diagnosis.findings.any?(&:error?) ? 1 : 0
      end

      private

      def defaults
        { json: false, allocator: nil, wait: Probe::Doctor::WAIT, url: nil }
      end

      def parse(argv)
        separator = argv.index("--")
        own = separator ? argv[0...separator] : argv
        command = separator ? argv[(separator + 1)..] : []
        raise UsageError, "doctor: -- must be followed by a command" if separator && command.empty?

        operands = parser.parse(own)
        validate(operands, command)
        [operands.first && Integer(operands.first, 10), command]
      rescue OptionParser::ParseError => e
        raise UsageError, "doctor: #{e.message} (see `mallard doctor --help`)"
      rescue ArgumentError
        raise UsageError, "doctor: PID must be a number, got '#{operands.first}'"
      end

      def parser
        OptionParser.new do |opts|
          opts.banner = BANNER
          opts.on("--json", "print one JSON object") { @cli[:json] = true }
          opts.on("--allocator NAME", "with -- CMD: start CMD under this configuration and verify it") do |name|
            @cli[:allocator] = name
          end
          opts.on("--wait SECONDS", Float, "with -- CMD: look after this long even if it has not settled " \
                                           "(threads, processes and CPU quiet for 1 s; default #{WAIT_TEXT})") do |s|
            @cli[:wait] = s
          end
          opts.on("--url URL", "with -- CMD: also wait until URL answers before looking") { |url| @cli[:url] = url }
          opts.on("-h", "--help", "show this help") { @cli[:help] = opts.help }
        end
      end

      def validate(operands, command)
        raise UsageError, "doctor: give a PID or -- CMD, not both" if operands.any? && command.any?
        raise UsageError, "doctor: one PID at a time (got #{operands.join(' ')})" if operands.size > 1
        raise UsageError, "doctor: --allocator goes with -- CMD" if command.empty? && @cli[:allocator]
        raise UsageError, "doctor: --url goes with -- CMD" if command.empty? && @cli[:url]

        validate_waiting
      end

      def validate_waiting
        wait = @cli[:wait]
        raise UsageError, "doctor: --wait must be a positive number of seconds, got #{format('%g', wait)}" unless
          wait.positive? && wait.finite?

        url = @cli[:url]
        raise UsageError, "doctor: --url must be an http:// URL, got '#{url}'" if url && !http?(url)
      end

      def http?(url)
        %w[http https].include?(URI(url).scheme)
      rescue URI::InvalidURIError
        false
      end

      def diagnose(pid, command)
        doctor = Probe::Doctor.new
        return doctor.diagnose(pid || Process.pid) if command.empty?

        doctor.diagnose_command(command, allocator: @cli[:allocator], wait: @cli[:wait], url: @cli[:url])
      end
    end
  end
end

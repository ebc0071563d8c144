# frozen_string_literal: true

module Mallard
  module Report
    # `mallard doctor` for a person: the facts, then the findings with what to do. What came from the
    # process (its command line, paths, environment) is printed through Text.printable.
    class DoctorTerminal
      include Formatting

      LABEL_WIDTH = 12
      MARKS = { "error" => "✗ error  ", "warning" => "! warning", "info" => "· info   " }.freeze
      SETTING_STATES = { "read" => "read", "ignored" => "ignored", "invalid" => "invalid", "deprecated" => "not read",
                         "unread" => "not read" }.freeze

      def initialize(diagnosis, color: Color::Plain.new)
        @diagnosis = diagnosis
        @color = color
      end

      def render(io)
        io.puts @color.bold("mallard doctor — PID #{@diagnosis.pid}: #{command_line}")
        facts.each { |label, value| io.puts "  #{label.ljust(LABEL_WIDTH)}#{value}" }
        render_tree(io)
        render_environment(io)
        render_settings(io)
        render_allocators(io)
        render_findings(io)
      end

      private

      def facts
        { "Started" => started_line, "Also Ruby" => other_rubies_line, "Looked" => looked_line,
          "Ruby" => ruby_line, "Allocator" => allocator_line, "Threads" => @diagnosis.threads.to_s,
          "Memory" => memory_line }.compact
      end

      # With -- CMD, when what was read is not CMD's own process: which one was, and why.
      def started_line
        started = @diagnosis.started
        return if started.nil? || started[:pid] == @diagnosis.pid

        what = @diagnosis.ruby? ? "the Ruby process it started" : "no Ruby process under it; read CMD itself"
        "#{shorten(started[:command].join(' '))} (PID #{started[:pid]}) → read PID #{@diagnosis.pid}, #{what}"
      end

      def other_rubies_line
        others = @diagnosis.other_rubies.to_a
        return if others.empty?

        others.map { |other| "PID #{other[:pid]} (#{shorten(other[:command].join(' '), 40)})" }.join(", ")
      end

      def looked_line
        looked = @diagnosis.looked
        return unless looked

        answered = looked[:url] ? "#{looked[:url]} answered and " : ""
        return "after #{looked[:after_s]} s, once #{answered}it had settled" if looked[:settled]

        @color.yellow("after #{looked[:after_s]} s (--wait), before #{answered}it had settled: figures may be mid-boot")
      end

      def command_line
        shorten(Text.printable(@diagnosis.command.join(" ")))
      end

      def shorten(text, width = 70)
        text.length > width ? "#{text[0, width - 3]}..." : text
      end

      def ruby_line
        ruby = @diagnosis.ruby
        return @color.dim("not a Ruby process (#{Text.printable(@diagnosis.executable)})") unless ruby

        "#{ruby.engine} #{ruby.version}, YJIT #{@diagnosis.yjit_requested ? 'requested' : 'not requested'}"
      end

      def allocator_line
        allocator = @diagnosis.allocator
        how = { "preloaded" => "preloaded via LD_PRELOAD", "linked" => "linked in",
                "default" => "the C library's default" }.fetch(allocator.via)
        path = allocator.path && @color.dim("(#{Text.printable(allocator.path)})")
        line = [@color.bold(allocator.name), "—", how, path].compact.join(" ")
        return line unless @diagnosis.malloc_trim

        "#{line}\n#{' ' * (LABEL_WIDTH + 2)}+ malloc_trim(0) after each major GC (mallard/trim)"
      end

      def memory_line
        memory = @diagnosis.memory
        %i[rss pss uss swap].map { |kind| "#{kind.upcase} #{mib(memory[:"#{kind}_kb"])}" }.join(" · ")
      end

      # A server's master: its tree, what the whole tree holds, and each process's part.
      def render_tree(io)
        tree = @diagnosis.tree
        return unless tree

        io.puts "  #{'Tree'.ljust(LABEL_WIDTH)}#{tree_line(tree)}"
        tree.processes.each { |process| io.puts "    #{tree_process_line(process)}" }
      end

      # puma, a master and 2 workers · summed PSS 72.2 MiB: shared 64.7 MiB, apart 7.5 MiB
      def tree_line(tree)
        under = tree.processes.size - 1
        shape = "#{tree.server || 'a process'} with #{under} under it, #{tree.workers} of them workers"
        "#{shape} · summed PSS #{mib(tree.pss_kb)}: shared #{mib(tree.shared_kb)}, apart (USS) #{mib(tree.uss_kb)}"
      end

      def tree_process_line(process)
        threads = "#{process.pool_threads} pool threads" if process.pool_threads.positive?
        figures = %i[rss pss uss].map { |kind| "#{kind.upcase} #{mib(process[:"#{kind}_kb"])}" }.join(" · ")
        ["PID #{process.pid.to_s.ljust(8)}#{process.role.ljust(10)}", figures,
         "shared #{process.shared_pct}% of its RSS", threads].compact.join("  ")
      end

      def render_environment(io)
        io.puts "  Environment"
        @diagnosis.environment.each do |var, value|
          io.puts "    #{Text.printable(var)}=#{value.nil? ? @color.dim('(unset)') : Text.printable(value)}"
        end
      end

      # Each RUBY_GC_* variable, MALLOC_CONF and YJIT setting as the process's own Ruby took it; the findings say
      # what to do about those it did not.
      def render_settings(io)
        unchecked = @diagnosis.settings_unchecked
        return io.puts("  #{'Settings'.ljust(LABEL_WIDTH)}#{@color.dim("not checked: #{unchecked}")}") if unchecked

        checks = @diagnosis.settings.to_a
        return if checks.empty?

        io.puts "  Settings, as #{@diagnosis.ruby.engine} #{@diagnosis.ruby.version} takes them"
        width = checks.map { |check| Summary::Diagnosis.setting(check).length }.max
        checks.each do |check|
          io.puts "    #{Text.printable(Summary::Diagnosis.setting(check).ljust(width))}  #{setting_state(check)}"
        end
      end

      # read: 1.100000 (default 1.800000) · read: YJIT on · ignored: it must be greater than 0 · not read: deprecated
      # for RUBY_GC_HEAP_%d_INIT_SLOTS · invalid: bogus:1
      def setting_state(check)
        said = case check.status
               when "read" then setting_read(check)
               when "deprecated" then "deprecated for #{check.instead}"
               else check.reason
               end
        text = Text.printable([SETTING_STATES.fetch(check.status), said].compact.join(": "))
        check.taken? ? @color.green(text) : @color.yellow(text)
      end

      # A RUBY_GC_* variable's value as Ruby took it, or YJIT on or off; MALLOC_CONF is taken as it is.
      def setting_read(check)
        return "#{check.read} (default #{check.default})" if check.default

        "YJIT #{check.read}" unless check.name == Probe::SettingsCheck::MALLOC_CONF
      end

      def render_allocators(io)
        io.puts "  Allocators on this machine"
        @diagnosis.catalog.each do |entry|
          reason = entry[:unavailable_reason]
          status = reason ? @color.dim("unavailable: #{reason}") : @color.green("available")
          io.puts "    #{entry[:name].ljust(15)}#{status}"
        end
      end

      def render_findings(io)
        io.puts
        return io.puts(@color.green("No findings.")) if @diagnosis.findings.empty?

        io.puts @color.bold("Findings")
        @diagnosis.findings.each do |finding|
          io.puts "  #{mark(finding.level)} #{Text.printable(finding.message)}"
          io.puts "            → #{Text.printable(finding.advice)}"
        end
      end

      def mark(level)
        text = MARKS.fetch(level)
        { "error" => @color.red(text), "warning" => @color.yellow(text) }.fetch(level, text)
      end
    end
  end
end

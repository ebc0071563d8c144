# frozen_string_literal: true

module Mallard
  module Experiments
    # The same soak under each memory configuration, repeated, in interleaved order (A B C A B C …)
    # so that machine drift hits every configuration alike, each run in a fresh process and its own
    # run directory. A configuration that is missing, does not take effect, or crashes the subject
    # becomes a row marked so — never a result — and the comparison goes on with the rest.
    class Compare
      # @param configs [Array<String>] catalog names; a repeated name is a second, identical row (A/A)
      def initialize(target:, options:, configs:, repeat:, run_dir:, reporter:, catalog: Allocators::Catalog.default)
        @target = target
        @options = options
        @rows = label(configs).map { |row_label, name| Row.new(row_label, catalog.fetch(name)) }
        @repeat = repeat
        @run_dir = run_dir
        @reporter = reporter
        @catalog = catalog
        @status = "running"
      end

      # @return [Hash] the summary (also written to summary.json)
      def call
        write_meta
        schedule.each_with_index { |(row, index), position| measure(row, index, position) }
        @status = "complete"
        finish
      rescue SignalException => e
        @status = "interrupted"
        @reason = "mallard received #{e.is_a?(Interrupt) ? 'SIGINT' : "SIG#{Signal.signame(e.signo)}"}"
        finish
      end

      private

      # One row of the comparison while it is measured.
      Row = Struct.new(:label, :allocator, :runs, :failure) do
        def initialize(label, allocator)
          super(label, allocator, [], nil)
        end

        def measurable?
          allocator.available? && failure.nil?
        end
      end

      def label(names)
        seen = Hash.new(0)
        names.map do |name|
          seen[name] += 1
          [seen[name] == 1 ? name : "#{name}##{seen[name]}", name]
        end
      end

      def schedule
        (1..@repeat).flat_map { |index| @rows.select { |row| row.allocator.available? }.map { |row| [row, index] } }
      end

      def measure(row, index, position)
        return unless row.measurable?

        @reporter.run_started(label: row.label, repeat: index, position: position + 1, total: schedule.size)
        summary = soak(row, index)
        return fail_row(row, summary["reason"], []) if summary["status"] != "complete"

        row.runs << figures(summary)
        @reporter.run_finished(label: row.label, summary: summary)
      rescue SubjectFailed => e
        fail_row(row, e.message, e.output_tail)
      rescue Error => e
        fail_row(row, e.message, [])
      end

      def soak(row, index)
        run_dir = Run::Directory.create(command: "soak", out: @run_dir.file("#{row.label.tr('#', '-')}-#{index}"))
        options = @options.dup.tap { |o| o.allocator = row.allocator.name }
        Soak.new(target: @target, options: options, run_dir: run_dir, reporter: @reporter, catalog: @catalog).call
      end

      def fail_row(row, reason, output_tail)
        row.failure = { reason: reason, output_tail: output_tail }
        @reporter.run_failed(label: row.label, reason: reason)
      end

      # What the comparison needs of one run; the full summary stays in the run's own directory.
      def figures(summary)
        memory = summary["memory"]
        load = summary["load"] || {}
        { steady_rss_kb: memory["steady_rss_kb"], steady_pss_kb: memory["steady_pss_kb"],
          peak_rss_kb: memory["peak_rss_kb"], processes: memory["processes"], rps: load["rps"],
          p50_ms: load.dig("latency_ms", "p50"), p99_ms: load.dig("latency_ms", "p99"), errors: load["errors"],
          run_dir: summary["run_dir"] }
      end

      def finish
        @run_dir.write_json("summary.json", CompareSummary.build(rows: @rows, status: @status, reason: @reason,
                                                                 run_dir: Text.scrub(@run_dir.path), target: @target))
        summary = @run_dir.read_json("summary.json")
        @reporter.finished(summary)
        summary
      end

      def write_meta
        @run_dir.write_json("meta.json", Run::Meta.build(command: "compare", target: @target, options: @options,
                                                         phases: { configs: @rows.map(&:label), repeat: @repeat },
                                                         subject: nil))
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Report
    # A soak's summary for a person: how it ended and whether it counts, the verdict, then memory, load, app
    # and GC figures, flags with what to do, and where the raw data is. Text from outside (the app's path, the
    # run directory, a failure's reason) is printed through Text.printable.
    class SoakTerminal
      include Formatting

      LABEL = 9

      # @param summary [Summary::Soak]
      # @param gc_first [Boolean] the GC timeline and the live set before memory (RunKind#gc_first?: a gc run)
      def initialize(summary, color: Color::Plain.new, gc_first: false)
        @summary = summary
        @color = color
        @gc_first = gc_first
        @sentences = SoakSentences.new(summary)
        @gc = GcLines.new(summary, @sentences, color: color)
      end

      def render(io)
        description = Text.printable(@summary.target&.description || "unknown target")
        io.puts @color.bold("mallard #{@summary.kind || 'soak'} — #{description}")
        warnings.each { |line| io.puts "  #{line}" }
        print_sections(io, sections, LABEL)
      end

      private

      # First, before any figure: a run that ended early, failed, or is no valid measurement.
      def warnings
        ended = ending(@summary, reason: @sentences.reason)
        lines = []
        lines << (@summary.status == "failed" ? @color.red(ended) : @color.yellow(ended)) if ended
        problems = Array(@summary.validity&.problems)
        lines + problems.map { |problem| @color.yellow("not a valid measurement: #{Text.printable(problem)}") }
      end

      def sections
        gc = [["GC", @gc.gc], ["Live set", @gc.live_set]]
        memory = [["Memory", memory_lines], ["Cgroup", @sentences.container], ["Sharing", @sentences.sharing],
                  ["Roles", @sentences.roles], ["Ledger", ledger_lines]]
        rest = [["Script", script_line], ["Load", load_line], ["Jobs", job_lines],
                ["Classes", @sentences.job_classes.all], ["App", app_line], ["Flags", flags],
                ["Run", [run_dir, skipped_line, @summary.cpu_layout&.description, @sentences.instrumented]]]
        overall = [["Verdict", [conclusion, UntilDecidedSentences.ending(@summary.until_decided)]]]
        @gc_first ? overall + gc + memory + rest : overall + memory + gc.reverse + rest
      end

      def ledger_lines
        LedgerLines.new(@summary.ledger, color: @color, sentence: @sentences.ledger, pss: @sentences.ledger_pss).lines
      end

      def conclusion
        said = @sentences.conclusion
        said && "#{@color.bold(verdict_word(@summary.verdict.overall).to_s)} — #{said}"
      end

      def memory_lines
        return [sparkline] if @summary.script # a script has no steady state; peak and final are below

        [verdict_line, steady_line(@summary.memory), sparkline, yjit_line].compact
      end

      # YJIT's own share of the memory, when the app ran with it (read from inside the app at its end).
      def yjit_line
        ruby = @summary.ruby || {}
        code, own = ruby.values_at("yjit_code_region_bytes", "yjit_alloc_bytes")
        return unless code

        format("YJIT on (Ruby %s): code region %s, its own allocations %s", ruby["version"], mib(code / 1024.0),
               mib(own.to_i / 1024.0))
      end

      def verdict_line
        verdict = @summary.verdict
        return unless verdict&.memory

        text = @color.bold(verdict.memory)
        slope = @sentences.memory_slope
        hint = @sentences.memory_hint
        first = slope ? "#{text} · #{slope}" : "#{text} — #{hint}"
        [first, (hint if slope), @color.dim(@sentences.memory_basis)].compact.join("\n#{' ' * (LABEL + 2)}")
      end

      def steady_line(memory)
        return "no memory samples" unless memory&.steady_rss_kb || memory&.peak_rss_kb

        parts = ["steady RSS #{mib(memory.steady_rss_kb)}", "PSS #{mib(memory.steady_pss_kb)}",
                 "peak #{mib(memory.peak_rss_kb)}"]
        parts << "#{memory.processes} processes" if memory.processes.to_i > 1
        parts.join(" · ")
      end

      def sparkline
        points = Array(@summary.series&.rss_kb).reject { |point| point.last.nil? }
        return if points.size < 2

        warmup = @summary.verdict&.warmup_end_s
        note = warmup.to_f.positive? ? ", warm-up #{warmup} s" : ""
        line = Sparkline.render(points.map(&:last))
        "#{line}  #{@color.dim("RSS over #{points.last.first.round} s#{note}")}"
      end

      def script_line
        script = @summary.script
        return unless script

        "#{script.wall_s} s wall · exit #{script.exit_status.inspect} · " \
          "peak RSS #{mib(script.peak_rss_kb)} · final #{mib(script.final_rss_kb)}"
      end

      def load_line
        load = @summary.load
        return unless load

        latency = load.latency_ms || Summary::Percentiles.new
        [format("%s · %d requests · %.1f req/s · p50 %.1f ms · p99 %.1f ms · %s", load.tool, load.requests.to_i,
                load.rps.to_f, latency.p50.to_f, latency.p99.to_f, errors(load)), cost_line(load), pacing_line(load),
         neighbours_line(load), @sentences.ramp]
      end

      def neighbours_line(load)
        return unless load.neighbours

        format("beside %d more copies of the app on its CPUs, each loaded alike (--neighbours): a host's crowding; " \
               "their figures are not these", load.neighbours)
      end

      # CPU time per request is the app's own cost, where req/s also moves with whatever else runs.
      def cost_line(load)
        return unless load.cpu_ms_per_request

        format("the app's CPU: %.3f ms per request (%.1f s in all)", load.cpu_ms_per_request, load.cpu_s.to_f)
      end

      def pacing_line(load)
        return unless load.target_rate

        line = format("open loop at %g req/s: %.1f%% of requests left late (up to %.0f ms)", load.target_rate,
                      load.late_pct.to_f, load.max_late_ms.to_f)
        load.late_pct.to_f > Analysis::Validity::MAX_LATE_PCT ? @color.yellow(line) : line
      end

      def job_lines
        jobs = @summary.jobs
        return unless jobs

        wait = jobs.queue_latency_ms || Summary::Percentiles.new
        run = jobs.job_ms || Summary::Percentiles.new
        [format("%s processed · %s failed (%.1f%%) · %.1f jobs/s · p50 queue wait %.1f ms · %s %.1f ms · " \
                "job p50 %.1f ms · p99 %.1f ms", count(jobs.processed), count(jobs.failed), jobs.failed_pct.to_f,
                jobs.per_s.to_f, wait.p50.to_f, Words::WORK.fetch("jobs")[:latency], wait.p99.to_f, run.p50.to_f,
                run.p99.to_f),
         job_details(jobs)]
      end

      def job_details(jobs)
        parts = []
        parts << "#{count(jobs.allocations_per_job)} allocations per job" if jobs.allocations_per_job
        parts << "queue depth up to #{count(jobs.max_enqueued)}" if jobs.max_enqueued
        parts << format("the worker's CPU: %.3f ms per job", jobs.cpu_ms_per_job) if jobs.cpu_ms_per_job
        parts << drain_text(jobs)
        parts << @color.dim(@sentences.backend_count(jobs))
        parts.compact.join(" · ")
      end

      def drain_text(jobs)
        return if jobs.drained.nil?
        return "queues drained in #{jobs.drain_s} s" if jobs.drained

        @color.yellow("#{count(jobs.left)} jobs still queued when the drain timed out (--drain-timeout)")
      end

      def errors(load)
        text = plural(load.errors.to_i, "error")
        load.error_pct ? format("%s (%.1f%% of requests)", text, load.error_pct) : text
      end

      def app_line
        app = @summary.app
        return unless app

        body = app.body_ms&.p50
        parts = [format("in-app p50 %.2f ms", app.in_app_ms&.p50.to_f)]
        parts << format("body p50 %.2f ms", body) if body # nil: Array bodies, written by the server unwrapped
        parts << "#{(app.chunks_per_response || {})['p50']} chunks per response (median)"
        [parts.join(" · "), outside_line(app.outside)]
      end

      def outside_line(outside)
        return unless outside

        queue = outside.queue_ms ? format("queueing %.2f", outside.queue_ms) : "queueing not measured"
        format("medians: from outside %.2f ms · in the server %.2f (%s · in-app %.2f · body %.2f) · " \
               "outside the server %.2f", outside.external_ms, outside.server_ms, queue, outside.in_app_ms,
               outside.body_ms, outside.rest_ms)
      end

      def flags
        Array(@summary.app&.flags).map { |flag| "#{@color.yellow('!')} #{Text.printable(flag)}" }
      end

      def run_dir = @summary.run_dir && Text.printable(@summary.run_dir)

      def skipped_line
        skipped = @summary.skipped_lines.to_i
        @color.yellow("#{plural(skipped, 'damaged sample line')} skipped") if skipped.positive?
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Report
    # A soak's summary for a person: the verdict first, then memory, load, app and GC figures,
    # flags with what to do, and where the raw data is.
    class SoakTerminal
      include Units

      LABEL = 9

      def initialize(summary, samples: [], color: Color::Plain.new)
        @summary = summary
        @samples = samples
        @color = color
      end

      def render(io)
        io.puts @color.bold("mallard soak — #{Text.printable(@summary.dig('target', 'description'))}")
        interrupted = @summary["status"] == "interrupted"
        io.puts @color.yellow("  interrupted: #{Text.printable(@summary['reason'])}") if interrupted
        sections.each do |label, lines|
          Array(lines).compact.each_with_index { |line, i| io.puts "  #{(i.zero? ? label : '').ljust(LABEL)}#{line}" }
        end
      end

      private

      def sections
        [["Memory", memory_lines], ["Script", script_line], ["Load", load_line], ["App", app_line],
         ["GC", gc_line], ["Flags", flags], ["Run", Text.printable(@summary["run_dir"])]]
      end

      def memory_lines
        memory = @summary["memory"] || {}
        return [sparkline] if @summary["script"] # a script has no steady state; peak and final are below

        [verdict_line, steady_line(memory), sparkline].compact
      end

      def verdict_line
        verdict = @summary["verdict"]
        return unless verdict

        text = @color.bold(verdict["memory"])
        return "#{text} — #{inconclusive_hint(verdict)}" if verdict["slope_kb_per_1k_requests"].nil?

        low, high = verdict["ci"]
        line = format("%s · slope %+.1f KB per 1k requests (95%% CI %+.1f … %+.1f, tolerance %s)", text,
                      verdict["slope_kb_per_1k_requests"], low, high, mb(verdict["tolerance_kb"]))
        verdict["memory"] == "inconclusive" ? "#{line}\n#{' ' * (LABEL + 2)}#{inconclusive_hint(verdict)}" : line
      end

      def inconclusive_hint(verdict)
        needed = verdict["requests_needed"]
        needed ? "run longer: about #{needed} requests after warm-up would decide it" : "too few samples to decide"
      end

      def steady_line(memory)
        return "no memory samples" unless memory["steady_rss_kb"] || memory["peak_rss_kb"]

        parts = ["steady RSS #{mb(memory['steady_rss_kb'])}", "PSS #{mb(memory['steady_pss_kb'])}",
                 "peak #{mb(memory['peak_rss_kb'])}"]
        parts << "#{memory['processes']} processes" if memory["processes"].to_i > 1
        parts.join(" · ")
      end

      def sparkline
        totals = @samples.select { |s| s["kind"] == "total" }
        return if totals.size < 2

        warmup = @summary.dig("verdict", "warmup_end_s")
        note = warmup ? ", warm-up #{warmup} s" : ""
        line = Sparkline.render(totals.map { |s| s["rss_kb"] })
        "#{line}  #{@color.dim("RSS over #{totals.last['t'].round} s#{note}")}"
      end

      def script_line
        script = @summary["script"]
        return unless script

        "#{script['wall_s']} s wall · exit #{script['exit_status'].inspect} · " \
          "peak RSS #{mb(script['peak_rss_kb'])} · final #{mb(script['final_rss_kb'])}"
      end

      def load_line
        load = @summary["load"]
        return unless load

        latency = load["latency_ms"] || {}
        format("%s · %d requests · %.1f req/s · p50 %.1f ms · p99 %.1f ms · %d errors", load["tool"], load["requests"],
               load["rps"], latency["p50"].to_f, latency["p99"].to_f, load["errors"].to_i)
      end

      def app_line
        app = @summary["app"]
        return unless app

        body = app.dig("body_ms", "p50")
        parts = [format("in-app p50 %.2f ms", app.dig("in_app_ms", "p50").to_f)]
        parts << format("body p50 %.2f ms", body) if body # nil: Array bodies, written by the server unwrapped
        parts << "#{app.dig('chunks_per_response', 'p50')} chunks per response (median)"
        parts.join(" · ")
      end

      def gc_line
        gc = @summary["gc"]
        return unless gc

        time = gc["time_ms"] ? format(" · %.2f s", gc["time_ms"] / 1000.0) : ""
        share = gc["share_of_wall"] ? format(" (%.1f%% of wall)", gc["share_of_wall"] * 100) : ""
        slots = gc["heap_live_slots"] || {}
        "#{gc['count']} runs (#{gc['minor_gc_count']} minor, #{gc['major_gc_count']} major)#{time}#{share} · " \
          "live slots #{slots['start']} → #{slots['end']}"
      end

      def flags
        Array(@summary.dig("app", "flags")).map { |flag| "#{@color.yellow('!')} #{flag}" }
      end
    end
  end
end

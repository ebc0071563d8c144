# frozen_string_literal: true

module Mallard
  module Report
    # A comparison for a person: the verdict table against the baseline, rows that could not be
    # measured and why, then the recommendation and how to deploy it.
    class CompareTerminal
      include Units

      SNIPPETS = { "dockerfile_debian" => "Dockerfile (Debian/Ubuntu base)",
                   "dockerfile_alpine" => "Dockerfile (Alpine)", "heroku" => "Heroku", "systemd" => "systemd",
                   "kubernetes" => "Kubernetes", "gemfile" => "Gemfile", "puma_config" => "config/puma.rb",
                   "rubyopt" => "Or without editing the app", "verify" => "Check it in production" }.freeze

      def initialize(summary, color: Color::Plain.new)
        @summary = summary
        @color = color
      end

      def render(io)
        io.puts @color.bold("mallard compare — #{Text.printable(@summary.dig('target', 'description'))}")
        interrupted = @summary["status"] == "interrupted"
        io.puts @color.yellow("  interrupted: #{Text.printable(@summary['reason'])}") if interrupted
        io.puts "  #{metric_name} per configuration, median of repeats with 95% intervals; " \
                "changes against #{@summary['baseline']}"
        io.puts
        table.each { |line| io.puts "  #{line}" }
        render_recommendation(io)
        io.puts
        io.puts "  Run directory: #{Text.printable(@summary['run_dir'])}"
      end

      private

      def metric_name
        @summary["metric"] == "steady_pss_kb" ? "Steady PSS (summed over processes)" : "Steady RSS"
      end

      def table
        header = ["configuration", "steady memory", "vs baseline", "peak", "req/s", "vs baseline", "p99 ms", "errors"]
        rows = @summary["configs"].map do |config|
          config["repeats"].to_i.positive? ? measured(config) : unmeasured(config)
        end
        widths = header.each_index.map { |i| ([header] + rows.grep(Array)).map { |r| r[i].to_s.length }.max }
        [format_row(header, widths)] + rows.map { |row| row.is_a?(Array) ? format_row(row, widths) : row }
      end

      def measured(config)
        vs = config["vs_baseline"] || {}
        [config["name"], with_ci(mb(config.dig("steady_rss_kb", "median")), config.dig("steady_rss_kb", "ci"), :mb),
         change(vs["rss_pct"], vs["rss_pct_ci"], vs["significant"]), mb(config.dig("peak_rss_kb", "median")),
         config.dig("rps", "median")&.round.to_s, change(vs["rps_pct"], vs["rps_pct_ci"], vs["rps_significant"]),
         format("%.1f", config.dig("latency_ms", "p99", "median").to_f), config["errors"].to_s]
      end

      def unmeasured(config)
        why = "unavailable: #{config['unavailable_reason'] || 'not run'}"
        why = "failed: #{Text.printable(config['failed'])}" if config["failed"] # quotes the subject's command
        "#{config['name'].ljust(15)} #{@color.dim(why)}"
      end

      def format_row(cells, widths)
        cells.each_with_index.map { |cell, i| cell.to_s.ljust(widths[i]) }.join("  ").rstrip
      end

      def with_ci(text, interval, _unit)
        return text unless interval

        format("%s (%.1f … %.1f)", text, interval[0] / 1024.0, interval[1] / 1024.0)
      end

      def render_recommendation(io)
        recommendation = @summary["recommendation"] || {}
        io.puts
        io.puts @color.bold("Recommendation: #{recommendation['name'] || 'none'}")
        io.puts "  #{recommendation['reason']}"
        Array(recommendation["rejected"]).each { |r| io.puts "  passed over #{r['name']}: #{r['why']}" }
        (recommendation["snippets"] || {}).each do |key, text|
          io.puts
          io.puts "  #{@color.bold(SNIPPETS.fetch(key, key))}"
          text.each_line { |line| io.puts "    #{line.chomp}" }
        end
      end
    end
  end
end

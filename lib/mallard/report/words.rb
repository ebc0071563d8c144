# frozen_string_literal: true

require_relative "../analysis/ledger_parts"

module Mallard
  module Report
    # How any figure or judgement is worded, once, below every view and presenter: a change with its interval, the
    # names of the figures (memory metrics, and the unit of work's rate, latency and CPU, keyed by the headline's
    # unit: requests or a job worker's jobs), the ledger's parts, and deploy efforts. Terminal, HTML, diff and the
    # recommendation all take their words from here, so one change reads the same in each.
    module Words
      # What each figure is called, for work counted in requests and in a job worker's jobs (whose latency is their
      # wait in the queue). rate/latency/cpu name a figure in sentences; the *_column names head table columns.
      WORK = {
        "requests" => { rate: "req/s", latency: "p99 latency", cpu: "CPU per request", errors: "errors",
                        per_second: "Requests per second", latency_column: "p99 latency ms", cpu_column: "CPU ms/req" },
        "jobs" => { rate: "jobs/s", latency: "p99 queue wait", cpu: "CPU per job", errors: "failed jobs",
                    per_second: "Jobs per second", latency_column: "p99 queue wait ms", cpu_column: "CPU ms/job" }
      }.freeze
      # The memory figures, by the summary's metric name.
      MEMORY = { "steady_rss_kb" => "steady RSS", "steady_pss_kb" => "steady PSS (summed over processes)",
                 "peak_rss_kb" => "peak RSS", "boot_rss_kb" => "RSS after boot" }.freeze
      # A summary's metric names for the unit of work's figures.
      WORK_METRICS = { "rps" => :rate, "p99_ms" => :latency, "cpu_ms_per_request" => :cpu }.freeze
      # What each deploy effort (Allocators::DeployEffort's levels, by index) asks of a deployment.
      DEPLOYS = ["nothing to change", "an environment variable", "a line in the app's code",
                 "a library to install and preload", "another Ruby to install"].freeze
      # The ledger's parts as a stacked line names them, in the ledger's order.
      LEDGER_SHORT = { Analysis::LedgerParts::LIVE => "ruby live", Analysis::LedgerParts::FREE_SLOTS => "ruby free",
                       Analysis::LedgerParts::TRANSIENT => "ruby transient", Analysis::LedgerParts::MALLOC => "malloc",
                       Analysis::LedgerParts::HELD => "malloc free", Analysis::LedgerParts::FILE => "file",
                       Analysis::LedgerParts::STACKS => "stacks", Analysis::LedgerParts::YJIT => "yjit",
                       Analysis::LedgerParts::UNEXPLAINED => "unexplained" }.freeze

      # What processes ran in (Summary::Conditions' members), as fleet --expect and compare --like name them, and what
      # compare --like sets that no member is (neighbours: the copies it runs to share the CPUs as production does).
      CONDITIONS = { "ruby" => "Ruby", "yjit" => "YJIT", "cpus" => "CPUs a process may use",
                     "threads" => "Puma's pool threads", "workers" => "workers", "malloc" => "malloc",
                     "mix" => "the request mix", "rate" => "requests a second a tree",
                     "served" => "requests a tree had served when its memory was read",
                     "trees_per_host" => "the app's trees sharing a host's CPUs",
                     "neighbours" => "copies of the app beside it (--neighbours)" }.freeze
      # Why compare --like's load left part of production's requests (Summary::MixLeft's reasons).
      MIX_LEFT = { "method" => "by methods other than GET", "id" => "to paths with an id, which the exporter names :id",
                   "other" => "to paths past the exporter's 50", "small" => "to paths under 1% each" }.freeze

      module_function

      # "Puma's pool threads (8 in the lab, 16 in production), Ruby (3.1.2 in the lab, 3.3.8 in production), the
      # request mix (GET /rows 0% of requests in the lab, 25% in production)"
      # @param gaps [Array<Summary::ConditionGap>]
      def condition_gaps(gaps)
        gaps.map { |gap| "#{CONDITIONS.fetch(gap.name, gap.name)} (#{gap_sides(gap)})" }.join(", ")
      end

      # A request mix's gap names its method and path, and the shares of the requests each side sent it.
      def gap_sides(gap)
        return "#{condition(gap.lab)} in the lab, #{condition(gap.production)} in production" unless gap.path

        "#{Text.printable(gap.path)} #{share(gap.lab)} of requests in the lab, #{share(gap.production)} in production"
      end

      # A share of requests (0 to 1) as a whole %: "25%".
      def share(value) = format("%.0f%%", value * 100)

      # compare --like's load: "GET / 75%, GET /rows 25%".
      # @param mix [Array<Summary::RequestShare>]
      def request_mix(mix)
        mix.map { |one| "#{Text.printable("#{one.method} #{one.path}")} #{share(one.share)}" }.join(", ")
      end

      # A condition's value: YJIT on or off, anything else as it is.
      def condition(value) = { true => "on", false => "off" }.fetch(value) { Text.printable(value.to_s) }

      # A % change with its 95% interval, "-12.3% (-15.0 … -9.5)"; the change alone without an interval.
      def change(pct, interval = nil)
        text = format("%+.1f%%", pct)
        interval ? "#{text} (#{bounds(interval)})" : text
      end

      # An interval of a % change: "-15.0 … -9.5".
      def bounds(interval) = format("%+.1f … %+.1f", *interval)

      # A figure's change named: "req/s -12.3% (-15.0 … -9.5)".
      # @param move [Summary::Move]
      # @param names [Hash] #figures of the run
      def moved(move, names) = "#{names.fetch(move.figure.to_sym)} #{change(move.pct, move.ci)}"

      # The names of a run's figures: the unit of work's, and memory's as the metric (Words::MEMORY).
      # @param unit [String] "requests" or "jobs"
      def figures(unit, metric = "steady_rss_kb") = WORK.fetch(unit).merge(memory: MEMORY.fetch(metric))

      # What a summary's metric is called for work counted in unit; a metric mallard does not name, as it is.
      def metric(name, unit = "requests")
        MEMORY[name] || WORK_METRICS[name]&.then { |figure| WORK.fetch(unit)[figure] } || name
      end

      # The unit of a run whose target may be a job worker.
      def unit_of(target) = target&.jobs? ? "jobs" : "requests"
    end
  end
end

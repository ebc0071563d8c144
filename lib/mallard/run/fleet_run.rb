# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Run
    # One series Prometheus returned: one process (its labels: instance, pid, role, job...), its points as
    # [unix time, value] pairs.
    FleetSeries = Value.define(:labels, :points)

    # One side of a fleet comparison: the selector as given, the query sent, and what came back.
    FleetSide = Value.define(:name, :selector, :query, series: [FleetSeries])

    # A fleet run's directory, read once: meta.json (the question: Prometheus, selectors, window, metric),
    # series.json (Prometheus's answers, raw), summary.json. parts: with --expect, each memory ledger part's two sides
    # (Hash{part name => [FleetSide A, FleetSide B]}; empty without); conditions: B's, by Summary::Conditions' member
    # (Hash{String => [FleetSeries]}; empty without --expect).
    FleetRun = Struct.new(:path, :meta, :a, :b, :summary, :parts, :conditions, keyword_init: true) do
      def options = meta.options || {}
    end
  end
end

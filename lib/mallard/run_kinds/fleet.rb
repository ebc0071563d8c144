# frozen_string_literal: true

module Mallard
  class RunKind
    # `mallard fleet`: two sets of production processes compared from Prometheus's series. It is a comparison
    # already (B against A), so it is not diffed, and it has no HTML view.
    class Fleet < RunKind
      def name = "fleet"
      def reader = Run::FleetReader
      def terminal_view = Report::FleetTerminal
      def html? = false
      def summarise(run) = Analysis::FleetSummary.call(run, fail_over: run.options["fail_over"])
    end

    register(Fleet.new)
  end
end

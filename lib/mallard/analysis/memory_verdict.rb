# frozen_string_literal: true

require_relative "leak_verdict"
require_relative "request_axis"

module Mallard
  module Analysis
    # Memory judged against the run's work: LeakVerdict's rule over RequestAxis's axis (requests or jobs as the agent
    # counted them in the whole tree, an idle soak's seconds), with the slope named by the run's unit. The one function
    # that judges the run's memory (SoakSummary) and each role's of a job backend's tree (RoleMemory), so the two can
    # never be judged by different rules.
    module MemoryVerdict
      module_function

      # @param run [Run::SoakRun]
      # @param samples [Array<Run::TotalSample>] the ticks judged, whose requests give the axis
      # @param levels [Array<Numeric>] memory at each of them, in KiB
      # @return [Hash] Summary::Verdict's members: memory, slope_kb_per_1k_<unit>, ci, samples, requests_observed,
      #   tolerance_kb, requests_needed, methodology, unit, requests_source
      def call(run, samples, levels)
        axis, source = RequestAxis.call(samples, load: run.load, phases: run.phases, idle: run.idle?)
        result = LeakVerdict.call(requests: axis, rss_kb: levels).to_h
        slope = result.delete(:slope_kb_per_1k_requests)
        result.merge(slope_key(run) => slope, unit: run.unit, requests_source: source)
      end

      def slope_key(run) = run.idle? ? :slope_kb_per_1k_s : :"slope_kb_per_1k_#{run.unit}"

      private_class_method :slope_key
    end
  end
end

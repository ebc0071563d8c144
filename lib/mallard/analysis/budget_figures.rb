# frozen_string_literal: true

module Mallard
  module Analysis
    # The figures a budget guards, read from one soak of an entry: each a level that is positive when measured, so the
    # one change rule (Change, on logs) applies to it.
    # - steady_pss_kb: the tree's steady memory, summed PSS (Summary::Memory).
    # - allocations_per_request: objects allocated per request, from GC.stat in the agent's records (per process:
    #   GC.stat cannot tell threads apart; JobFigures counts a job worker's the same way).
    # - live_slots: the live set at the end of the run, slots live after the last major GC (Summary::LiveSet#end):
    #   what requests left retained, as a level, not a per-request difference that an A/A puts around zero.
    # Left out: the boot total (a `mallard boot` per repeat would double the budget's time) and retained objects
    # per request from heap dumps (three dumps per soak; `mallard heap` answers that when a budget fails).
    module BudgetFigures
      NAMES = %w[steady_pss_kb allocations_per_request live_slots].freeze

      module_function

      # @param soak [Run::SoakRun]
      # @param summary [Summary::Soak] its summary
      # @return [Hash] figure name => value (nil when the soak gave none)
      def of(soak, summary)
        { "steady_pss_kb" => summary.memory&.steady_pss_kb,
          "allocations_per_request" => JobFigures.allocations_per_job(soak.agent),
          "live_slots" => summary.live_set&.end }
      end
    end
  end
end

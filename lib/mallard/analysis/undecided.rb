# frozen_string_literal: true

require_relative "live_set"
require_relative "ledger_parts"

module Mallard
  module Analysis
    # What a soak has not decided yet: `soak --until-decided` keeps the load on until nothing is. Decided means the
    # app's own memory grows (that answers the question, whatever RSS does), or else memory, the live set (judged on
    # exact readings, live slots after major GCs) and malloc in use each have a verdict.
    module Undecided
      # name: what is undecided; needed: the run length (work after warm-up, in unit) its estimate says would decide it.
      Part = Struct.new(:name, :needed, :unit, keyword_init: true)
      VERDICT = "the verdict (too few samples yet)"
      MEMORY = "memory"
      LIVE_SET = "the live set"
      EXACT = "the live set on exact readings (live slots after major GCs)"
      MALLOC = LedgerParts::MALLOC

      module_function

      # @param summary [Summary::Soak] a soak's summary so far
      # @return [Array<Part>] empty once decided
      def call(summary)
        verdict = summary.verdict
        return [Part.new(name: VERDICT)] unless verdict
        return [] if verdict.overall == "growing"

        parts = []
        parts << Part.new(name: MEMORY, needed: verdict.requests_needed) if verdict.memory == "inconclusive"
        parts.concat(live_set(summary.live_set))
        parts << Part.new(name: MALLOC, needed: verdict.decide_units) if verdict.app_held == "inconclusive"
        parts.each { |part| part.unit = verdict.unit }
      end

      # Undecided, or decided on a stand-in for want of major GCs.
      def live_set(live)
        return [] unless live
        return [Part.new(name: LIVE_SET, needed: live.needed)] if live.verdict == "inconclusive"
        return [Part.new(name: EXACT)] unless live.measure == LiveSet::AFTER_MAJOR

        []
      end

      private_class_method :live_set
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Analysis
    # Joins a soak's verdicts into the run's one word and what the parts say together, from the parts rather than
    # from RSS.
    #
    # The question a developer asks first is "does my app leak?", and RSS cannot answer it: RSS also grows while an
    # allocator settles or holds what the app freed (a Rails app's glibc took 25.7 → 31.8 MiB of held-free memory
    # over a soak whose Ruby objects were flat at 28.6 MiB). So the app's own memory — Ruby's live set and malloc in
    # use (the ledger's app-held parts) — decides:
    # - growing:      the app's own memory grows, resolved: it retains memory (a cache or a leak);
    # - not_a_leak:   the app's own memory is flat while memory (RSS or PSS) still rises or is still settling: the
    #                 allocator holds what the app freed, which `mallard compare` can win back;
    # - plateaued:    memory levelled off (and the app's own memory did too, or was not decided under it);
    # - inconclusive: memory rises and the app's own memory is not decided: which part rises, and how many more units
    #                 of work (and minutes at this rate) would decide it.
    # Without anything inside the subject (no agent) memory alone speaks, and the finding says the app's own memory
    # was not measured.
    #
    # The decision is data (overall, and the finding that says which of these cases it is); its sentence is
    # Report::SoakSentences#conclusion's.
    module VerdictConclusion
      # The finding under each overall word when the app's own memory is flat ("plateaued") or not decided, by
      # memory's state (nil for a script, which has no memory verdict); any other state's under the key :other.
      FLAT_APP = { "growing" => %w[not_a_leak allocator_holds], "inconclusive" => %w[not_a_leak allocator_settling],
                   nil => %w[plateaued script_bounded], other: %w[plateaued bounded] }.freeze
      UNDECIDED_APP = { "plateaued" => %w[plateaued app_undecided], nil => %w[inconclusive live_set_undecided],
                        other: %w[inconclusive undecided] }.freeze

      # overall as above; finding: which case it is — "unmeasured" (no agent), "app_grows" (malloc in use grows, the
      # live set does not), "both_grow" (memory and the live set), "live_set_grows" (a script's), "live_set_ahead"
      # (the live set grows before memory does), "allocator_holds" (the app flat, memory rising), "allocator_settling"
      # (the app flat, memory not decided), "script_bounded", "bounded", "app_undecided" (memory levelled off over an
      # undecided app), "live_set_undecided" (a script's) or "undecided" (memory rises or is undecided, and so is the
      # app); app_own: the app's own memory's state (nil when unmeasured); rising: the ledger part that rose most while
      # undecided; decide_units: the run length (work after warm-up) that would decide what is undecided,
      # decide_minutes the time that is from now at the run's rate (nil when unknown).
      Decision = Struct.new(:overall, :finding, :app_own, :rising, :decide_units, :decide_minutes, keyword_init: true)

      module_function

      # @param memory [Summary::Verdict, nil] the memory verdict; nil for a script (no steady state)
      # @param live_set [Summary::LiveSet, nil] nil when nothing inside the subject measured the heap
      # @param ledger [Ledger::Result, nil] the memory ledger's judgements; nil without readings
      # @param rate [Float, nil] units of work a second over the load, for the minutes a decision is away
      # @return [Decision]
      def call(memory:, live_set:, ledger: nil, rate: nil)
        app = app_own(live_set&.verdict, ledger&.app_held)
        state = memory&.memory
        return Decision.new(overall: state, finding: state && "unmeasured") unless app

        decision = decide(state, app, live_set&.verdict)
        undecided(decision, memory, live_set, ledger, rate)
      end

      # The app's own memory: growing when either of its parts grows, flat when every part read is flat.
      def app_own(live_set, app_held)
        parts = [live_set, app_held].compact
        return if parts.empty?
        return "growing" if parts.include?("growing")

        parts.all?("plateaued") ? "plateaued" : "inconclusive"
      end

      def decide(memory, app, live_set)
        overall, finding = case app
                           when "growing" then ["growing", growing(memory, live_set)]
                           when "plateaued" then FLAT_APP.fetch(memory) { FLAT_APP[:other] }
                           else UNDECIDED_APP.fetch(memory) { UNDECIDED_APP[:other] }
                           end
        Decision.new(overall: overall, finding: finding, app_own: app)
      end

      def growing(memory, live_set)
        return "app_grows" unless live_set == "growing"

        case memory
        when "growing" then "both_grow"
        when nil then "live_set_grows"
        else "live_set_ahead"
        end
      end

      # What is still undecided, and how far off deciding it is; for a run not decided yet, the part rising most.
      def undecided(decision, memory, live_set, ledger, rate)
        units = units_to_decide(decision, memory, live_set, ledger)
        if units
          decision.decide_units = units.ceil
          observed = memory&.requests_observed
          decision.decide_minutes = ((units - observed) / rate / 60.0).round(1) if observed && rate&.positive?
        end
        decision.rising = rising_part(ledger) if decision.finding == "undecided"
        decision
      end

      # The longest of the runs that would decide each undecided part; nil when any of them is not known.
      def units_to_decide(decision, memory, live_set, ledger)
        needs = []
        needs << memory.requests_needed if memory&.memory == "inconclusive" && decision.overall != "growing"
        needs.concat(app_needs(live_set, ledger)) if decision.app_own == "inconclusive"
        needs.max unless needs.empty? || needs.any?(&:nil?)
      end

      # The run length each undecided part of the app's own memory needs.
      def app_needs(live_set, ledger)
        needs = []
        needs << live_set.needed if live_set&.verdict == "inconclusive"
        needs << ledger.app_needed if ledger&.app_held == "inconclusive"
        needs
      end

      # The ledger part whose growth is largest: growing, or else rising most.
      def rising_part(ledger)
        parts = Array(ledger&.ledger&.parts).select { |part| part.slope&.positive? }
        parts.max_by { |part| [part.verdict == "growing" ? 1 : 0, part.slope] }&.name
      end

      private_class_method :app_own, :decide, :growing, :undecided, :units_to_decide, :app_needs, :rising_part
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Analysis
    # Joins a soak's verdicts into the run's one word and one sentence, from the parts rather than from RSS.
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
    # Without anything inside the subject (no agent) memory alone speaks, and the sentence says the app's own memory
    # was not measured.
    module VerdictConclusion
      COMPARE = "try `mallard compare` (e.g. glibc-arena2, jemalloc) to see whether another allocator gives it back"
      RETAINS = "the app retains objects (a cache or a leak)"
      MIB = 1024.0

      # overall and conclusion as above; app_own: the app's own memory's state (nil when unmeasured); rising: the
      # ledger part that rose most while undecided; decide_units: the run length (work after warm-up) that would
      # decide what is undecided, decide_minutes the time that is from now at the run's rate (nil when unknown).
      Decision = Struct.new(:overall, :conclusion, :app_own, :rising, :decide_units, :decide_minutes,
                            keyword_init: true)

      module_function

      # @param memory [Summary::Verdict, nil] the memory verdict; nil for a script (no steady state)
      # @param live_set [Summary::LiveSet, nil] nil when nothing inside the subject measured the heap
      # @param ledger [Ledger::Result, nil] the memory ledger's judgements; nil without readings
      # @param rate [Float, nil] units of work a second over the load, for the minutes a decision is away
      # @return [Decision]
      def call(memory:, live_set:, ledger: nil, rate: nil)
        app = app_own(live_set&.verdict, ledger&.app_held)
        state = memory&.memory
        return unmeasured(state) unless app

        decision = decide(state, app, live_set, ledger)
        undecided(decision, memory, live_set, ledger, rate)
      end

      # The app's own memory: growing when either of its parts grows, flat when every part read is flat.
      def app_own(live_set, app_held)
        parts = [live_set, app_held].compact
        return if parts.empty?
        return "growing" if parts.include?("growing")

        parts.all?("plateaued") ? "plateaued" : "inconclusive"
      end

      def decide(memory, app, live_set, ledger)
        case app
        when "growing" then Decision.new(overall: "growing", conclusion: growing(memory, live_set&.verdict))
        when "plateaued" then flat_app(memory, ledger)
        else undecided_app(memory)
        end.tap { |decision| decision.app_own = app }
      end

      def growing(memory, live_set)
        unless live_set == "growing"
          return "The app's own memory grows (malloc in use; the live set is #{live_set || 'not read'}): it " \
                 "retains memory, perhaps native or buffers (a cache or a leak)."
        end

        case memory
        when "growing" then "Memory and the live set both grow: #{RETAINS}."
        when nil then "The live set grows: #{RETAINS}."
        else "The live set grows while memory is #{memory} so far: #{RETAINS}, and memory will follow."
        end
      end

      def flat_app(memory, ledger)
        case memory
        when "growing" then Decision.new(overall: "not_a_leak", conclusion: allocator_holds(ledger))
        when "inconclusive"
          Decision.new(overall: "not_a_leak",
                       conclusion: "Not a leak: the app's own memory is flat. Memory is not decided yet: what moves " \
                                   "there is the allocator settling#{held(ledger)} — run longer to see where it stops.")
        when nil then Decision.new(overall: "plateaued", conclusion: "The live set has levelled off: the script " \
                                                                     "retains nothing more.")
        else Decision.new(overall: "plateaued", conclusion: "Memory and the app's own memory both levelled off: the " \
                                                            "app is bounded.")
        end
      end

      def allocator_holds(ledger)
        "Not a leak: the app's own memory is flat while memory rises — the allocator is holding memory the app " \
          "freed#{held(ledger) || ' (fragmentation)'}; #{COMPARE}."
      end

      def held(ledger)
        kb = ledger&.headroom_kb
        format(" (%.0f MiB so far)", kb / MIB) if kb && kb >= MIB
      end

      def undecided_app(memory)
        case memory
        when "plateaued"
          Decision.new(overall: "plateaued", conclusion: "Memory levelled off; the app's own memory is not decided " \
                                                         "yet (too short a run, or growing slowly under the noise).")
        when nil then Decision.new(overall: "inconclusive", conclusion: "The live set is not decided yet.")
        else Decision.new(overall: "inconclusive")
        end
      end

      # What is still undecided, and how far off deciding it is; the sentence for a run not decided yet.
      def undecided(decision, memory, live_set, ledger, rate)
        units = units_to_decide(decision, memory, live_set, ledger)
        if units
          decision.decide_units = units.ceil
          observed = memory&.requests_observed
          decision.decide_minutes = ((units - observed) / rate / 60.0).round(1) if observed && rate&.positive?
        end
        return decision if decision.conclusion

        decision.rising = rising_part(ledger)
        decision.conclusion = not_decided(decision, memory, live_set, ledger)
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

      def not_decided(decision, memory, live_set, ledger)
        rises = memory&.memory == "growing" ? "Memory rises" : "Memory is not decided"
        rises += ", most in #{decision.rising}" if decision.rising && memory&.memory == "growing"
        parts = [("the live set" if live_set&.verdict == "inconclusive"),
                 (LedgerParts::MALLOC if ledger&.app_held == "inconclusive")].compact.join(" and ")
        "Not decided yet: #{rises}, and the app's own memory (#{parts}) is not decided#{away(decision, memory)}."
      end

      def away(decision, memory)
        return "; run longer, or use --until-decided" unless decision.decide_units

        minutes = decision.decide_minutes ? format(", ~%.1f minutes at this rate", decision.decide_minutes) : ""
        "; about #{decision.decide_units} #{memory&.unit || 'requests'} after warm-up would decide it#{minutes} " \
          "(--until-decided)"
      end

      def unmeasured(memory)
        Decision.new(overall: memory,
                     conclusion: memory && "Memory #{memory}; the app's own memory was not measured (no agent inside " \
                                           "the subject), so this does not say whether it is a leak or the allocator.")
      end

      private_class_method :app_own, :decide, :growing, :flat_app, :allocator_holds, :held, :undecided_app,
                           :undecided, :units_to_decide, :app_needs, :rising_part, :not_decided, :away, :unmeasured
    end
  end
end

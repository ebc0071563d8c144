# frozen_string_literal: true

module Mallard
  module Report
    # The words of a soak's verdict (Analysis::VerdictConclusion's finding), for every view: what memory and the app's
    # own memory say together, what to try, and how far off a decision is. A verdict stored with its sentence (an
    # older summary.json) is shown as it was worded then.
    class VerdictSentences
      include Formatting

      COMPARE = "try `mallard compare` (e.g. glibc-arena2, jemalloc) to see whether another allocator gives it back"
      RETAINS = "the app retains objects (a cache or a leak)"
      # The findings whose sentence has no figure in it.
      SAID = {
        "both_grow" => "Memory and the live set both grow: #{RETAINS}.",
        "live_set_grows" => "The live set grows: #{RETAINS}.",
        "script_bounded" => "The live set has levelled off: the script retains nothing more.",
        "bounded" => "Memory and the app's own memory both levelled off: the app is bounded.",
        "app_undecided" => "Memory levelled off; the app's own memory is not decided yet (too short a run, or " \
                           "growing slowly under the noise).",
        "live_set_undecided" => "The live set is not decided yet."
      }.freeze

      # @param verdict [Summary::Verdict, nil]
      # @param headroom_kb [Numeric, nil] what the allocator holds free at the end (Summary::Soak#headroom_kb)
      def initialize(verdict, headroom_kb: nil)
        @verdict = verdict
        @headroom_kb = headroom_kb
      end

      # The sentence joining the verdict's parts; nil when there is nothing to join.
      def conclusion
        return @verdict&.conclusion if @verdict.nil? || @verdict.worded?

        finding = @verdict.finding
        SAID.fetch(finding) { finding && figured(finding) }
      end

      private

      def figured(finding)
        case finding
        when "unmeasured" then unmeasured
        when "app_grows" then app_grows
        when "live_set_ahead"
          "The live set grows while memory is #{@verdict.memory} so far: #{RETAINS}, and memory will follow."
        when "allocator_holds" then allocator_holds
        when "allocator_settling"
          "Not a leak: the app's own memory is flat. Memory is not decided yet: what moves there is the allocator " \
          "settling#{held} — run longer to see where it stops."
        else not_decided
        end
      end

      def unmeasured
        "Memory #{@verdict.memory}; the app's own memory was not measured (no agent inside the subject), so this " \
          "does not say whether it is a leak or the allocator."
      end

      def app_grows
        "The app's own memory grows (#{Analysis::LedgerParts::MALLOC}; the live set is " \
          "#{@verdict.live_set || 'not read'}): it retains memory, perhaps native or buffers (a cache or a leak)."
      end

      def allocator_holds
        "Not a leak: the app's own memory is flat while memory rises — the allocator is holding memory the app " \
          "freed#{held || ' (fragmentation)'}; #{COMPARE}."
      end

      # What the allocator holds, from a MiB on.
      def held
        " (#{whole_mib(@headroom_kb)} so far)" if @headroom_kb && @headroom_kb >= 1024
      end

      # Which part rises, which parts of the app's own memory are undecided, and what would decide them.
      def not_decided
        growing = @verdict.memory == "growing"
        rises = growing ? "Memory rises" : "Memory is not decided"
        rises += ", most in #{@verdict.rising}" if @verdict.rising && growing
        parts = [("the live set" if @verdict.live_set == "inconclusive"),
                 (Analysis::LedgerParts::MALLOC if @verdict.app_held == "inconclusive")].compact.join(" and ")
        "Not decided yet: #{rises}, and the app's own memory (#{parts}) is not decided#{away}."
      end

      def away
        units = @verdict.decide_units
        return "; run longer, or use --until-decided" unless units

        minutes = @verdict.decide_minutes
        at_rate = minutes ? format(", ~%.1f minutes at this rate", minutes) : ""
        "; about #{count(units)} #{@verdict.unit} after warm-up would decide it#{at_rate} (--until-decided)"
      end
    end
  end
end

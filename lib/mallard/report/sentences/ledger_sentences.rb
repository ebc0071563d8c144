# frozen_string_literal: true

module Mallard
  module Report
    # The memory ledger's verdict (Summary::Ledger#finding) in words a Rails developer reads once, for every view:
    # whether the app's own memory grows (a cache or a leak) or what grows is memory the allocator holds after the app
    # freed it (then: not a leak, how much, why, and what to try), and how much an allocator change can win at most.
    # A ledger stored with its sentence (an older summary.json) is shown as it was worded then.
    class LedgerSentences
      include Formatting

      # How each allocator comes to hold memory.
      WHY_HELD = { "glibc" => "arena high-water marks", "jemalloc" => "dirty and retained pages",
                   "tcmalloc" => "its page heap and thread caches" }.freeze
      # Configurations worth trying when an allocator holds what the app freed.
      TRY = { "glibc" => "MALLOC_ARENA_MAX=2, jemalloc", "jemalloc" => "jemalloc-tuned", "tcmalloc" => "jemalloc" }
            .freeze

      # @param ledger [Summary::Ledger, nil]
      # @param headroom_kb [Numeric, nil] what the allocator holds free at the end (Summary::Soak#headroom_kb)
      def initialize(ledger, headroom_kb: nil)
        @ledger = ledger
        @headroom_kb = headroom_kb
      end

      # The ledger's verdict; nil without a ledger, or when what the app holds could not be read.
      def sentence
        return @ledger&.sentence if @ledger.nil? || @ledger.worded?

        case @ledger.finding
        when "app_grows"
          "the app's own memory grows (#{slope}): it retains memory — a cache or a leak#{headroom('; besides, ')}"
        when "app_flat" then "not a leak: the app's own memory is flat; #{holding}"
        when "app_unconfirmed" then "#{unconfirmed}#{headroom('; ')}"
        when "app_undecided" then "the app's own memory is not decided yet (run longer)#{headroom('; ')}"
        end
      end

      private

      # "+12 KiB per 1,000 requests"
      def slope = format("%+.0f %s", @ledger.app_slope, @ledger.unit)

      def unconfirmed
        "the app's malloc'd memory grows (#{slope}) while its live set is flat: buffers of objects not collected " \
          "yet, or native memory (a C extension) — not decided; run longer"
      end

      def holding
        allocator = @ledger.allocator
        name = allocator || "the allocator"
        return "#{name} does not say how much it holds free" unless @headroom_kb
        return "#{name} holds less than 1 MiB it has freed#{more}: an allocator change has little to win" if small?

        why = WHY_HELD[allocator]
        "#{name} is holding #{whole_mib(@headroom_kb)} it has freed#{more}#{" (#{why})" if why}; try `mallard " \
          "compare`#{" (#{TRY[allocator]})" if TRY[allocator]}: #{headroom('')}"
      end

      # The allocator-held part is judged on its own among the parts (Analysis::LedgerParts::ALLOCATOR_HELD is it).
      def more
        held = @ledger.parts.find { |part| part.name == Analysis::LedgerParts::HELD }
        held&.verdict == "growing" ? ", and more as the run goes on" : ""
      end

      def small? = @headroom_kb < 1024

      def headroom(prefix)
        return "" if @headroom_kb.nil? || small?

        "#{prefix}an allocator change can win up to ~#{whole_mib(@headroom_kb)}"
      end
    end
  end
end

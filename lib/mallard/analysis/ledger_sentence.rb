# frozen_string_literal: true

require_relative "ledger_parts"

module Mallard
  module Analysis
    # The memory ledger's verdict in words a Rails developer reads once: whether the app's own memory grows (a
    # cache or a leak) or what grows is memory the allocator holds after the app freed it (then: not a leak, how
    # much, why, and what to try), and how much an allocator change can win at most.
    module LedgerSentence
      MIB = 1024.0
      # Configurations worth trying when an allocator holds what the app freed.
      TRY = { "glibc" => "MALLOC_ARENA_MAX=2, jemalloc", "jemalloc" => "jemalloc-tuned", "tcmalloc" => "jemalloc" }
            .freeze

      module_function

      # @param allocator [String, nil] the subject's malloc ("glibc", "jemalloc", ...)
      # @param app [LeakVerdict::Judgement, nil] app-held memory's judgement; nil when it could not be read
      # @param held [LeakVerdict::Judgement, nil] allocator-held memory's
      # @param headroom_kb [Numeric, nil] what the allocator holds free at the end
      # @param unit [String] the work slopes are per ("1,000 requests", "second")
      # @return [String, nil]
      def call(allocator:, app:, held:, headroom_kb:, unit:)
        return unless app

        case app.state
        when "growing"
          format("the app's own memory grows (%+.0f KiB per %s): it retains memory — a cache or a leak%s",
                 app.slope, unit, headroom(headroom_kb, prefix: "; besides, "))
        when "plateaued" then "not a leak: the app's own memory is flat; #{holding(allocator, held, headroom_kb)}"
        else "#{undecided(app, unit)}#{headroom(headroom_kb, prefix: '; ')}"
        end
      end

      def undecided(app, unit)
        unless app.methodology.to_s.include?("not confirmed")
          return "the app's own memory is not decided yet (run longer)"
        end

        format("the app's malloc'd memory grows (%+.0f KiB per %s) while its live set is flat: buffers of objects " \
               "not collected yet, or native memory (a C extension) — not decided; run longer", app.slope, unit)
      end

      def holding(allocator, held, headroom_kb)
        name = allocator || "the allocator"
        return "#{name} does not say how much it holds free" unless headroom_kb

        more = held&.state == "growing" ? ", and more as the run goes on" : ""
        return "#{name} holds less than 1 MiB it has freed#{more}: an allocator change has little to win" \
          if headroom_kb < MIB

        why = LedgerParts::WHY_HELD[allocator]
        text = format("%<name>s is holding %<mib>.0f MiB it has freed%<more>s%<why>s",
                      name: name, mib: headroom_kb / MIB, more: more, why: why ? " (#{why})" : "")
        "#{text}; try `mallard compare`#{" (#{TRY[allocator]})" if TRY[allocator]}: " \
          "#{headroom(headroom_kb, prefix: '')}"
      end

      def headroom(headroom_kb, prefix:)
        return "" unless headroom_kb && headroom_kb >= MIB

        format("%san allocator change can win up to ~%.0f MiB", prefix, headroom_kb / MIB)
      end

      private_class_method :undecided, :holding, :headroom
    end
  end
end

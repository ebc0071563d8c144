# frozen_string_literal: true

module Mallard
  module Analysis
    # Joins a soak's two verdicts — memory (RSS or PSS) and the live set — into the run's one word and one
    # sentence. The live set says whether the app keeps Ruby objects; memory whether the process grows. Together
    # they say where growth comes from: objects retained (a cache or a leak) or memory the allocator holds after
    # Ruby freed it. A bounded app whose live set has levelled off is not "inconclusive" as a whole because its
    # memory is still settling: the live set decides that the app keeps nothing more.
    module VerdictConclusion
      COMPARE = "try `mallard compare` (e.g. glibc-arena2, jemalloc) to see whether another allocator gives it back"
      RETAINS = "the app retains objects (a cache or a leak)"

      module_function

      # @param memory [String, nil] the memory verdict; nil for a script (no steady state)
      # @param live_set [String, nil] the live-set verdict; nil when nothing inside the subject measured the heap
      # @return [Array(String, String)] [overall, conclusion]
      def call(memory:, live_set:)
        case live_set
        when "growing" then ["growing", growing_live_set(memory)]
        when "plateaued" then plateaued_live_set(memory)
        when "inconclusive" then [memory || "inconclusive", undecided_live_set(memory)]
        else [memory, memory && "Memory #{memory}; the live set was not measured (no agent inside the subject)."]
        end
      end

      def growing_live_set(memory)
        case memory
        when "growing" then "Memory and the live set both grow: #{RETAINS}."
        when nil then "The live set grows: #{RETAINS}."
        else "The live set grows while memory is #{memory} so far: #{RETAINS}, and memory will follow."
        end
      end

      def plateaued_live_set(memory)
        case memory
        when "growing"
          ["growing", "The live set is flat while memory rises: the allocator is holding memory Ruby freed " \
                      "(fragmentation), not the app retaining objects; #{COMPARE}."]
        when "inconclusive"
          ["plateaued", "The live set has levelled off: the app retains nothing more. Memory is not decided yet; " \
                        "what moves there is the allocator settling — run longer to see where it stops."]
        when nil then ["plateaued", "The live set has levelled off: the script retains nothing more."]
        else ["plateaued", "Memory and the live set both levelled off: the app is bounded."]
        end
      end

      def undecided_live_set(memory)
        live = "the live set is not decided yet (too short a run, or still growing slowly)"
        memory ? "Memory #{memory}; #{live}." : "#{live.capitalize}."
      end

      private_class_method :growing_live_set, :plateaued_live_set, :undecided_live_set
    end
  end
end

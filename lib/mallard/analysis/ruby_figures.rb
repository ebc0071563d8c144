# frozen_string_literal: true

module Mallard
  module Analysis
    # The subject's Ruby from inside (Run::RubyState records): whether YJIT was on when the agent started and
    # when the app ended (an initializer may turn it on between), and the memory YJIT held at the end, summed over
    # the processes (each Puma worker compiles its own code).
    module RubyFigures
      module_function

      # @param states [Array<Run::RubyState>] in time order
      # @return [Hash{String=>Object}] yjit_at_boot, yjit_at_end (true/false; nil when no process said),
      #   yjit_code_region_bytes and yjit_alloc_bytes (nil where YJIT was off or the Ruby does not say),
      #   yjit_region_bytes (the code region YJIT reserved, the largest any process said: the same in each),
      #   gc_timeline (the agent's per-GC source) and gc_hooks_unavailable (why it is not the hooks),
      #   jemalloc_options (jemalloc's options as the process took them; nil under another allocator),
      #   compact_count_at_end (the most compactions any process had at its last word, its end or, where it wrote none
      #   (killed at the stop), its fork: an action after boot compacts in the process that loaded the app, the
      #   master or each worker, and a worker forked after it inherits the count; nil where none said)
      def inside(states)
        boot = states.find { |state| state.at == "boot" }
        ends = states.select { |state| state.at == "end" }.group_by(&:pid).values.map(&:last)
        main = ends.find { |state| state.pid == boot&.pid } || ends.first
        { "yjit_at_boot" => boot&.yjit, "yjit_at_end" => main&.yjit, "gc_timeline" => boot&.gc_timeline,
          "gc_hooks_unavailable" => boot&.hooks_unavailable, "jemalloc_options" => boot&.jemalloc_options,
          **yjit_memory(states, ends), "compact_count_at_end" => last_words(states).filter_map(&:compact_count).max }
      end

      # Each process's last line after its start: its end, else its fork.
      def last_words(states)
        states.reject { |state| state.at == "boot" }.group_by(&:pid).values.map(&:last)
      end

      # What YJIT held at the end, summed over the processes, and the region it reserved, the same in each.
      def yjit_memory(states, ends)
        { "yjit_code_region_bytes" => total(ends, :yjit_code_region_bytes),
          "yjit_alloc_bytes" => total(ends, :yjit_alloc_bytes),
          "yjit_region_bytes" => states.filter_map(&:yjit_region_bytes).max }
      end

      def total(states, field)
        values = states.filter_map { |state| state.public_send(field) }
        values.empty? ? nil : values.sum
      end
    end
  end
end

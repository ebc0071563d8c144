# frozen_string_literal: true

require_relative "json_text"

module Mallard
  module Agent
    # The app's Ruby as seen from inside, for a "ruby" line of agent.jsonl: its version, whether YJIT is on —
    # which only the process itself knows, since Rails 7.2+ turns it on from an initializer — and what YJIT
    # holds (its code region, its own allocations, the address space it reserved for code: YjitRegion), and how many
    # times its heap was compacted (an action after boot compacts it: Allocators::AfterBoot). Written when the agent
    # starts, in each forked child as it starts (what it inherited: a tree killed at its stop writes no end, and the
    # workers forked after Process.warmup still say they carry its compaction), and when the process ends.
    module RubyState
      module_function

      # @param at [String] "boot", "fork" or "end"
      # @param time [Float] seconds on the run's clock
      # @param notes [Hash] more for the line: the per-GC timeline's source, why not the hooks
      def line(at:, time:, **notes)
        JsonText.object(+"", { kind: "ruby", t: time.round(6), pid: Process.pid, at: at, **read(at), **notes }) << "\n"
      end

      # A child at its fork holds its parent's YJIT code, not its own: its memory is read at its end.
      def read(at)
        on = (defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?) || false
        { version: RUBY_VERSION, yjit: on, compact_count: compactions, **(on && at != "fork" ? yjit_memory : {}) }
      end

      # nil where the GC does not count them (GC.stat's keys differ between GC builds).
      def compactions
        GC.stat(:compact_count)
      rescue ArgumentError
        nil
      end

      # runtime_stats gives these without --yjit-stats (Ruby 3.3: code_region_size, yjit_alloc_size); the region
      # reserved, which --yjit-exec-mem-size sets, only the maps say.
      def yjit_memory
        require_relative "yjit_region" # only where YJIT runs: the agent loads no more than it needs
        stats = RubyVM::YJIT.runtime_stats || {}
        { yjit_code_region_bytes: stats[:code_region_size], yjit_alloc_bytes: stats[:yjit_alloc_size],
          yjit_region_bytes: YjitRegion.read }
      rescue StandardError
        {}
      end
    end
  end
end

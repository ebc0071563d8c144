# frozen_string_literal: true

require_relative "../extension_loader"

module Mallard
  module Agent
    # The bytes the C allocator has handed out and not yet freed, read inside the process by
    # mallard/malloc_stats_ext (ext/mallard_malloc_stats): jemalloc's stats.allocated, tcmalloc's
    # generic.current_allocated_bytes or glibc's mallinfo2, for whichever allocator the process really runs on
    # (a preloaded one, or glibc's malloc). A reading allocates nothing and costs microseconds (jemalloc ~7,
    # tcmalloc ~2), except glibc's: mallinfo2 walks every free chunk, so it grows with fragmentation, to
    # milliseconds in a heap with ~100,000 free chunks (see ext/mallard_malloc_stats/malloc_stats.c).
    #
    # It runs inside the user's app, so this file loads only itself and the extension. It never raises and never
    # warns: where there is no reading, in_use is nil and unavailable_reason says why, for the caller to report.
    # The allocator cannot change in a running process, so it is found once, when this file loads.
    module MallocStats
      EXTENSION = "malloc_stats_ext"
      # Why a built extension gives no reading, by source.
      NO_READING = {
        "mimalloc" => "mimalloc counts the bytes it has handed out only in its debug builds (MI_STAT > 1)",
        "glibc" => "this C library has no mallinfo2 (glibc 2.33 or later has it)",
        "jemalloc" => "this jemalloc keeps no statistics (built with --disable-stats)"
      }.freeze

      class << self
        # @return [String, nil] "jemalloc", "tcmalloc", "mimalloc" or "glibc"; "unknown" when malloc comes from
        #   a library mallard cannot read; nil when the extension is not built
        attr_reader :source

        # @return [String, nil] why in_use is nil (the extension is not built, or the allocator gives no
        #   reading); nil when it gives readings
        attr_reader :unavailable_reason

        # @return [Integer, nil] bytes handed out by malloc and not yet freed; nil when there is no reading
        def in_use
          @extension&.in_use
        end

        # in_use's figure and the allocator's own gauges by their own names (jemalloc's "stats.resident", glibc's
        # "mallinfo2.fordblks", ...), for the memory ledger and the metrics endpoint. Both at once: glibc's come
        # from one walk of every free chunk, milliseconds on a fragmented heap, and a ledger reading that walked
        # three times took 4-8 ms of a Rails app's CPU. Unlike in_use it allocates (a Hash): read it once an
        # interval, never per allocation.
        # @return [Array(Integer, Hash{String=>Integer})] in_use (nil where there is none) and the gauges (empty
        #   where the allocator gives none, or the extension predates them)
        def reading
          return [in_use, {}] unless @extension.respond_to?(:reading)

          @extension.reading
        end

        # jemalloc's options as this process runs with them ("opt.narenas" => 2, "opt.background_thread" => true,
        # …), read once by the agent for a row's MALLOC_CONF to be checked against (Allocators::JemallocConf).
        # @return [Hash{String=>Object}] empty under any other allocator, or an extension that predates them
        def options
          @extension.respond_to?(:options) ? @extension.options : {}
        end

        private

        def setup
          @extension = load_extension
          return if @extension.nil?

          @source = @extension.source
          @unavailable_reason = no_reading_reason if @extension.in_use.nil?
        end

        def load_extension
          extension, @unavailable_reason = ExtensionLoader.load(EXTENSION, :MallocStatsExt)
          extension
        end

        def no_reading_reason
          NO_READING.fetch(@source) do
            if @source == "unknown"
              "malloc comes from #{@extension.malloc_library || 'a library'} that mallard cannot read"
            else
              "#{@source} gave no reading"
            end
          end
        end
      end

      setup
    end
  end
end

# frozen_string_literal: true

require_relative "json_text"
require_relative "malloc_stats"
require_relative "boot_reading"

module Mallard
  module Agent
    # The parts of this process's RSS, read from inside at a coarse interval for the memory ledger
    # (Analysis::Ledger): RSS and its file-backed part (statm), bytes in live Ruby slots and in all Ruby heap pages,
    # malloc in use beyond Ruby's heap pages (BootReading's rules, so boot and soak split alike), the allocator's
    # own statistics as it names them (mallinfo2's fordblks, jemalloc's stats.resident, ...; the analysis turns
    # them into what the allocator holds free), YJIT's code region where YJIT runs, the thread count, and from
    # the mappings (Mappings) the stacks' and the transient heap's size and the process's PSS, in all and
    # file-backed.
    #
    # Cost: glibc's mallinfo2 walks every free chunk, milliseconds on a fragmented heap, so a reading is taken at
    # most every `interval` seconds (DEFAULT_INTERVAL, or MALLARD_LEDGER_INTERVAL), never per request, and each
    # line says what its reading cost (cost_ms, CPU time of the thread that took it) so the run shows the ledger's
    # own price. It is taken with the interval's record, by the request that ends when that is due (Recorder says
    # why not by a thread of the agent's own).
    # The mappings are read here only when asked for (MALLARD_MAPPINGS_INTERVAL, seconds; the exporter's stacks part
    # needs it), as a soak's sampler reads them from outside (Probe::Sampler): reading them from inside the app costs
    # it far more than their own CPU. On Ruby 3.1 one read of smaps (2-3 ms) from the agent's thread
    # while the app's threads were busy left Puma's main thread waking on every GVL hand-over for seconds after
    # (strace: ~300 system calls a second, ppoll returning at once and the GVL taken each time), and a bare thread
    # reading smaps every 2 s did the same.
    # Side by side (bench/agent_paired.rb), the agent with a mappings reading every 30 s cost the demo app 19.5% of
    # its CPU per request, and 4.2% without it. Asked for, they are read every that many seconds; the readings in
    # between carry the stacks and the transient heap, which move slowly, but not the PSS, which is only true of the
    # reading it was taken with (mappings_t says when).
    class Ledger
      DEFAULT_INTERVAL = 2.0

      # @param origin [Float] the CLOCK_MONOTONIC value the run's t counts from
      # @param interval [Float] seconds between readings, at least
      # @param mappings_interval [Float, nil] seconds between readings of the mappings, at least; nil: never read
      def initialize(origin:, interval: DEFAULT_INTERVAL, mappings_interval: nil)
        @origin = origin
        @interval = interval
        @mappings_interval = mappings_interval
        require_relative "mappings" if mappings_interval # only then: Agent::Switches says why
        @next = 0.0
        @page_bytes = GC::INTERNAL_CONSTANTS[:HEAP_PAGE_SIZE].to_i
      end

      # @param env [Hash] MALLARD_LEDGER_INTERVAL: seconds, or "off"; MALLARD_MAPPINGS_INTERVAL: seconds
      # @return [Ledger, nil] nil when switched off
      def self.from_env(env, origin:)
        wanted = env["MALLARD_LEDGER_INTERVAL"]
        return if wanted == "off"

        new(origin: origin, interval: seconds(wanted) || DEFAULT_INTERVAL, mappings_interval: mappings_interval(env))
      end

      # @return [Float, nil] MALLARD_MAPPINGS_INTERVAL's seconds; nil (never read) unless it gives a positive number
      def self.mappings_interval(env) = seconds(env["MALLARD_MAPPINGS_INTERVAL"])

      def self.seconds(value)
        number = Float(value, exception: false)
        number if number&.positive?
      end
      private_class_method :seconds

      # A forked child reads its own memory, from the start.
      def after_fork
        @reading = nil
        @mappings = nil
        @next = 0.0
      end

      # The reading as a JSON line when one is due at `now` (CLOCK_MONOTONIC), else nil.
      # @param requests [Integer] the process's units of work so far
      def take(now, requests:)
        return if now < @next

        @next = now + @interval
        started = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
        fields = self.fields(now)
        fields["cost_ms"] = ((Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) - started) * 1000).round(3)
        JsonText.object(+"", { "kind" => "ledger", "t" => (now - @origin).round(6), "pid" => Process.pid,
                               "requests" => requests }.merge(fields)) << "\n"
      end

      # One reading's figures, by LedgerRecord's names (the exporter serves the parts they make, Exporter::Readings).
      # @param now [Float] CLOCK_MONOTONIC, for whether the mappings are due
      # @param malloc_reading [Array(Integer, Hash)] the allocator's reading (MallocStats.reading), when the caller
      #   has taken it for its own use as well: glibc's walks every free chunk, so it is taken once
      # @return [Hash{String=>Object}]
      def fields(now = Process.clock_gettime(Process::CLOCK_MONOTONIC), malloc_reading: MallocStats.reading)
        @reading ||= BootReading.new
        in_use, statistics = malloc_reading
        _, rss, file, live, malloc, = @reading.to_a(in_use)
        { "rss_kb" => kb(rss), "file_kb" => kb(file), "ruby_live_kb" => kb(live),
          "ruby_pages_kb" => kb(GC.stat(:heap_allocated_pages) * @page_bytes), "malloc_in_use_kb" => kb(malloc),
          "allocator" => MallocStats.source, "malloc_note" => MallocStats.unavailable_reason,
          "malloc" => statistics, "yjit_kb" => yjit_kb, "threads" => Thread.list.size }
          .merge(mappings(now))
      end

      private

      def mappings(now)
        return {} unless @mappings_interval
        return @mappings.slice(*Mappings::CARRIED) if @mappings && now < @mappings_next

        @mappings_next = now + @mappings_interval
        read = Mappings.read
        @mappings = read ? read.merge("mappings_t" => (now - @origin).round(3)) : {}
      end

      # The bytes YJIT has written into its code region; nil where YJIT is not running.
      def yjit_kb
        return unless defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?

        stats = RubyVM::YJIT.runtime_stats || {}
        bytes = stats[:code_region_size] || (stats[:inline_code_size].to_i + stats[:outlined_code_size].to_i)
        kb(bytes)
      end

      def kb(bytes) = bytes && (bytes / 1024.0).round
    end
  end
end

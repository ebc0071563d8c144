# frozen_string_literal: true

require_relative "switches"

module Mallard
  module Agent
    # Heap dumps on mallard's request (`mallard heap`), when MALLARD_HEAP_DIR (Switches::HEAP_DIR) names the run's
    # heap directory.
    #
    # Allocation tracing is on from the agent's start, so each object in a dump carries the file, line and GC
    # generation that allocated it. A request is a file `request-N` that mallard writes into the directory; a
    # thread of the agent sees it within POLL and forks: the child, a copy of the process at that instant, runs
    # a GC and writes `heap-PID-N.json` (mode 0600: a dump holds the app's data) and then `heap-PID-N.done`
    # (when the fork happened, the GC count then, how long the dump took), while the parent goes on serving.
    # ObjectSpace.dump_all in the app itself would stop it for the whole dump (seconds for a big heap).
    class HeapDumper
      POLL = 0.1

      # @param dir [String] the run's heap directory, which env's Switches::HEAP_DIR names
      # @return [HeapDumper] started
      def self.start(dir, origin:)
        require "objspace" # only here: an app soaked without `mallard heap` must not load it
        require_relative "code_places"
        ObjectSpace.trace_object_allocations_start
        new(dir, origin: origin).start
      end

      def initialize(dir, origin:)
        @dir = dir
        @origin = origin
        @done = []
        @dumping = false
      end

      # True in a dump child between fork and exit: the agent's fork hook must not restart the recorder there.
      def dumping? = @dumping

      def start
        @thread = Thread.new { run }
        @thread.name = "mallard-heap"
        @thread.report_on_exception = false
        self
      end

      # A forked worker (Puma's) dumps its own heap: its thread is gone, and the parent's requests were the
      # parent's.
      def after_fork
        @done = Dir.glob(File.join(@dir, "request-*")).map { |path| request_number(path) }
        start
      end

      private

      def run
        loop do
          sleep POLL
          pending.each { |number| dump(number) }
        end
      rescue StandardError => e
        warn "mallard agent: heap dumps stopped (#{e.class}: #{e.message})"
      end

      def pending
        Dir.glob(File.join(@dir, "request-*")).map { |path| request_number(path) }.compact.sort - @done
      end

      def request_number(path)
        Integer(File.basename(path).delete_prefix("request-"), exception: false)
      end

      # A minor GC just before the fork closes a generation: every object allocated after the fork has a newer
      # one than every object in the dump, so the analysis can tell "allocated after dump A" exactly. It and the
      # one right after the fork are the pauses the app sees (minor GCs: milliseconds).
      def dump(number)
        @done << number
        GC.start(full_mark: false, immediate_sweep: false)
        forked_at = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        generation = GC.count
        rss_kb = resident_kb
        @dumping = true
        child = fork { write(number, forked_at, [generation, rss_kb]) }
        @dumping = false
        Process.detach(child)
        # A second minor GC closes the generation the fork itself allocated in (method caches of the fork hooks an
        # app installs, ActiveSupport's among them): the window after a dump opens at the generation after it
        # (marker's "opens"), so mallard's own fork is never taken for what the app keeps.
        GC.start(full_mark: false, immediate_sweep: false)
      end

      # In the child: nothing but this thread runs here, and nothing of the app's at_exit — not even when the failure
      # cannot be written either (a full disk), which would otherwise raise out of the fork block into at_exit.
      def write(number, forked_at, (generation, rss_kb))
        base = File.join(@dir, "heap-#{Process.ppid}-#{number}")
        GC.start
        created = false
        File.open("#{base}.json", File::WRONLY | File::CREAT | File::EXCL, 0o600) do |file|
          created = true
          ObjectSpace.dump_all(output: file)
        end
        marker(base, number, forked_at, generation, rss_kb)
        exit!(0)
      rescue StandardError => e
        failed(base, e, created)
        exit!(1)
      end

      # A dump cut short is no dump: it goes, giving back the space a full disk needs for the run's own records and
      # for saying why.
      def failed(base, error, created)
        File.delete("#{base}.json") if created
        File.write("#{base}.failed", "#{error.class}: #{error.message}\n")
      rescue StandardError
        nil # mallard finds the dump missing and says so
      end

      # json only in the dump's child: loaded into the app it would slow every request (RecordLine).
      def marker(base, number, forked_at, generation, rss_kb)
        require "json"
        seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - forked_at
        File.write("#{base}.done", JSON.generate("pid" => Process.ppid, "number" => number, "generation" => generation,
                                                 "opens" => generation + 1,
                                                 "t" => (forked_at - @origin).round(3), "seconds" => seconds.round(3),
                                                 "bytes" => File.size("#{base}.json"), "rss_kb" => rss_kb,
                                                 **CodePlaces.to_h))
      end

      # The app's resident memory as it forks, to set each dump's size against.
      def resident_kb
        File.foreach("/proc/self/status") { |line| return line.split[1].to_i if line.start_with?("VmRSS:") }
        nil
      rescue SystemCallError
        nil
      end
    end
  end
end

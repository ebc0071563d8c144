# frozen_string_literal: true

module Mallard
  module Run
    # The dumps of one three-dump analysis, in the order they were taken: the analysis asks for each scan
    # (HeapDump.scan) as it needs it, with the window it has worked out from the earlier ones.
    class HeapDumps
      # paths_seconds: how long the reference-path passes took (they are timed apart from the streaming ones).
      attr_reader :paths, :paths_seconds

      # @raise [NotFound] when a path is not a readable file
      def initialize(paths)
        @paths = paths
        missing = paths.find { |path| !File.file?(path) || !File.readable?(path) }
        raise NotFound, "no readable heap dump at #{missing}" if missing
      end

      def size = @paths.size

      # @return [HeapDump::Scan]
      def scan(index, window: nil)
        HeapDump.scan(@paths.fetch(index), window: window)
      end

      # @return [Hash{Array(String, Integer) => Array<HeapPaths::Step>}] see HeapPaths.find
      def reference_paths(index, sites, window)
        started = Clock.monotonic
        HeapPaths.find(@paths.fetch(index), sites, window)
      ensure
        @paths_seconds = Clock.monotonic - started
      end

      # The peak RSS of the process reading the dumps, so far (VmHWM).
      def peak_rss_kb
        Probe::ProcFiles.new(Process.pid).status["VmHWM"].to_i
      end
    end
  end
end

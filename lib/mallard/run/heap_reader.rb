# frozen_string_literal: true

module Mallard
  module Run
    # A dump the agent wrote during `mallard heap`: its process, its number (1, 2, 3: A, B, C), the file, and its
    # marker — when the fork happened (seconds into the run), the GC count after the GC that closed its generation,
    # how long writing it took, and where that process's code lives (Agent::CodePlaces).
    # rss_kb: the process's resident memory as it forked for the dump; opens: the first generation allocated wholly
    # after the fork (nil from an agent before it closed the fork's own generation).
    HeapDumpFile = Struct.new(:pid, :number, :path, :generation, :opens, :t, :seconds, :bytes, :rss_kb, :places,
                              keyword_init: true)

    # A heap run: the soak that ran (SoakReader: its summary in soak_summary.json), the dumps its agent wrote under
    # heap/, mallard's record of its requests for them and of its own requests to the app meanwhile (schedule:
    # heap_dumps.json as Experiments::HeapDumps wrote it, {} when it is missing), and the heap summary
    # (summary.json), nil until the analysis has run.
    HeapRun = Struct.new(:path, :soak, :dumps, :failures, :schedule, :summary, keyword_init: true) do
      include Value::Copy

      def meta = soak.meta

      # The dumps of the process that wrote all three, A B C in order (with Puma workers, the first such process).
      def complete_dumps
        dumps.group_by(&:pid).values.map { |mine| mine.sort_by(&:number) }.find { |mine| mine.size >= 3 } || []
      end
    end

    # The one reader of a heap run's directory.
    module HeapReader
      # Where the agent writes the dumps, inside the run directory.
      DIRECTORY = "heap"
      SCHEDULE = "heap_dumps.json"

      module_function

      # @param directory [Directory]
      # @return [HeapRun]
      def read(directory)
        heap = directory.file(DIRECTORY)
        HeapRun.new(path: directory.path, soak: SoakReader.read(directory), dumps: dumps(directory),
                    failures: Dir.glob(File.join(heap, "*.failed")).map { |path| failure(path) },
                    schedule: directory.read_json(SCHEDULE) || {},
                    summary: Summary::Heap.from_h(directory.read_json("summary.json")))
      end

      # A marker that is gone, unreadable or not JSON names no finished dump: it is left out.
      def dumps(directory)
        Dir.glob(File.join(directory.file(DIRECTORY), "heap-*.done")).filter_map do |marker|
          done = directory.read_json(File.join(DIRECTORY, File.basename(marker)))
          next unless done

          path = marker.sub(/\.done\z/, ".json")
          HeapDumpFile.new(pid: done["pid"], number: done["number"], path: path, generation: done["generation"],
                           opens: done["opens"],
                           t: done["t"], seconds: done["seconds"], bytes: done["bytes"], rss_kb: done["rss_kb"],
                           places: done.slice("gems", "ruby_dirs", "app_dir"))
        rescue JSON::ParserError, SystemCallError
          nil
        end
      end

      # A marker left empty names a dump whose reason found no room either (a full disk).
      def failure(path)
        reason = File.read(path).strip
        reason.empty? ? "#{File.basename(path, '.failed')} failed and could not say why" : reason
      end

      private_class_method :dumps, :failure
    end
  end
end

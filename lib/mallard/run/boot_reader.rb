# frozen_string_literal: true

module Mallard
  module Run
    # The one reader of a boot run's directory, live or stored: meta.json, samples.jsonl (the probes' lines, all
    # repeats in one file) and summary.json become a BootRun. A repeat killed mid-boot keeps the requires it
    # finished and has no end.
    module BootReader
      module_function

      # @param directory [Directory]
      # @return [BootRun]
      def read(directory)
        samples = JsonLines.read(directory.file("samples.jsonl"))
        by_repeat = samples.records.group_by { |record| record["repeat"] }
        repeats = by_repeat.map { |number, records| repeat(number, records) }
        objects, memory = repeats.partition(&:objects_pass?)
        BootRun.new(path: directory.path, meta: Meta.from_h(directory.read_json("meta.json")) || Meta.new,
                    repeats: memory.sort_by(&:repeat), objects: objects.first,
                    summary: Summary::Boot.from_h(directory.read_json("summary.json")), skipped: samples.skipped)
      end

      def repeat(number, records)
        by_type = records.group_by { |record| record["type"] }.transform_values(&:first)
        requires = records.select { |record| record["type"] == "require" }.map { |record| require_record(record) }
        BootRepeat.new(repeat: number, **start_fields(by_type["start"] || {}), **finish_fields(by_type["end"] || {}),
                       failure: failure(by_type), requires: requires, **after_boot(by_type))
      end

      # What the probe wrote once the boot had ended (or been stopped).
      def after_boot(by_type)
        { memsize: by_type["memsize"]&.fetch("bytes", nil), stopped: by_type["stopped"]&.fetch("signal", nil),
          fork: by_type["fork"]&.slice("master", "workers"), retained: by_type["retained"]&.fetch("files", nil) }
      end

      # The app's own error when it raised; else how mallard saw the probe end, if it ended before its boot did.
      def failure(by_type)
        raised = by_type["failed"]
        return raised.slice("class", "message", "where") if raised

        exited = by_type["exited"]
        ended_early = exited && !by_type.key?("end") && (exited["timed_out"] || !by_type.key?("stopped"))
        ended_early ? { "message" => [exited["how"], exited["output"]].compact.join(": ") } : nil
      end

      def start_fields(start)
        { pid: start["pid"], mode: start["mode"], ruby: start["ruby"], malloc: start["malloc"],
          malloc_note: start["malloc_note"], probe_bytes: start["probe_bytes"], loader: start["loader"],
          start: BootReading.from_a(start["reading"]) }
      end

      def finish_fields(finish)
        { finish: BootReading.from_a(finish["reading"]), hook_objects: finish["hook_objects"],
          malloc_stopped: finish["malloc_stopped"],
          gems: finish["gems"] || [], ruby_dirs: finish["ruby_dirs"] || [], app_dir: finish["app_dir"] }
      end

      def require_record(record)
        RequireRecord.new(id: record["id"], parent: record["parent"], name: record["name"], file: record["file"],
                          loaded: record["loaded"], error: record["error"], hook_objects: record["hook_objects"],
                          start: BootReading.from_a(record["start"]), finish: BootReading.from_a(record["end"]))
      end

      private_class_method :repeat, :after_boot, :failure, :start_fields, :finish_fields, :require_record
    end
  end
end

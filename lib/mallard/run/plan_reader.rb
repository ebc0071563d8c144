# frozen_string_literal: true

module Mallard
  module Run
    # The one reader of a plan's run directory: meta.json, summary.json, and each soak below it (through SoakReader),
    # found by name, so a plan copied elsewhere or stopped before its summary still reads.
    module PlanReader
      MEASURE = "measure-"
      CHECK = "check"

      module_function

      # @param directory [Directory]
      # @return [PlanRun]
      def read(directory)
        PlanRun.new(path: directory.path, meta: Meta.from_h(directory.read_json("meta.json")) || Meta.new,
                    summary: Summary::Plan.from_h(directory.read_json("summary.json")), soaks: soaks(directory))
      end

      # measure-1, measure-2 … in the order they ran (by number, so measure-10 comes after measure-9), then check.
      def soaks(directory)
        names = Dir.children(directory.path).select { |name| File.file?(File.join(directory.file(name), "meta.json")) }
        measuring = names.select { |name| name.start_with?(MEASURE) }
                         .sort_by { |name| name.delete_prefix(MEASURE).to_i }
        (measuring + (names & [CHECK])).to_h { |name| [name, SoakReader.read(Directory.new(directory.file(name)))] }
      end
    end
  end
end

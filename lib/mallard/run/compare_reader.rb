# frozen_string_literal: true

module Mallard
  module Run
    # The one reader of a comparison's run directory: meta.json, summary.json, and each soak run its summary
    # names (through SoakReader). summary.json records each run's absolute path; a comparison copied elsewhere
    # (or a fixture) still finds its runs under its own directory, by name.
    module CompareReader
      module_function

      # @param directory [Directory]
      # @return [CompareRun]
      def read(directory)
        summary = Summary::Compare.from_h(directory.read_json("summary.json"))
        paths = Array(summary&.rows).to_h do |row|
          [row.name, (Array(row.runs) + Array(row.invalid_runs)).map { |run| resolve(directory, run.run_dir) }]
        end
        CompareRun.new(path: directory.path, meta: Meta.from_h(directory.read_json("meta.json")) || Meta.new,
                       summary: summary, missing: paths.values.flatten.count(nil),
                       soak_runs: paths.transform_values { |found| found.compact.map { |p| soak(p) } })
      end

      def soak(path)
        SoakReader.read(Directory.new(path))
      end

      def resolve(directory, recorded)
        return if recorded.nil? || recorded.empty?

        [File.expand_path(recorded, directory.path), directory.file(File.basename(recorded))]
          .find { |candidate| File.directory?(candidate) }
      end
    end
  end
end

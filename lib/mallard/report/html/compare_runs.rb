# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The soak run directories behind a comparison, per configuration in the table's order.
      # summary.json records each run's absolute path; a comparison copied elsewhere (or a fixture)
      # still finds its runs under its own directory, by name.
      class CompareRuns
        Config = Struct.new(:name, :style, :runs, :missing, keyword_init: true)

        def initialize(directory, summary)
          @directory = directory
          @summary = summary
        end

        def configs
          @configs ||= Array(@summary["rows"]).each_with_index.map do |row, i|
            paths = Array(row["runs"]).map { |run| resolve(run["run_dir"]) }
            runs = paths.compact.map { |path| SoakRun.new(Run::Directory.new(path)) }
            Config.new(name: row["name"], style: i, runs: runs, missing: paths.count(nil))
          end
        end

        def missing = configs.sum(&:missing)

        private

        def resolve(recorded)
          return if recorded.nil? || recorded.empty?

          [File.expand_path(recorded, @directory.path), @directory.file(File.basename(recorded))]
            .find { |candidate| File.directory?(candidate) }
        end
      end
    end
  end
end

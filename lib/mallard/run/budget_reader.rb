# frozen_string_literal: true

module Mallard
  module Run
    # The one reader of a budget's run directory: meta.json, budget.json, summary.json, and each soak below it (through
    # SoakReader), named entry-E-run-R, so a budget stopped before its summary still reads.
    module BudgetReader
      SOAK = /\Aentry-(\d+)-run-(\d+)\z/

      module_function

      # The directory name of an entry's repeat (both counted from 1).
      def soak_name(entry, repeat) = "entry-#{entry}-run-#{repeat}"

      # @param directory [Directory]
      # @return [BudgetRun]
      def read(directory)
        stored = directory.read_json("budget.json")
        budget = stored && BudgetFile.from_h(stored)
        BudgetRun.new(path: directory.path, meta: Meta.from_h(directory.read_json("meta.json")) || Meta.new,
                      budget: budget, summary: Summary::Budget.from_h(directory.read_json("summary.json")),
                      soaks: soaks(directory, budget ? budget.entries.size : 0))
      end

      # Each entry's soaks by repeat number (run-10 after run-9).
      def soaks(directory, entries)
        found = Dir.children(directory.path).filter_map do |name|
          match = SOAK.match(name)
          [match[1].to_i, match[2].to_i, name] if match && File.file?(File.join(directory.file(name), "meta.json"))
        end
        (1..entries).map do |entry|
          found.select { |index, _, _| index == entry }.sort_by { |_, repeat, _| repeat }
               .map { |_, _, name| SoakReader.read(Directory.new(directory.file(name))) }
        end
      end
    end
  end
end

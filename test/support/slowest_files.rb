# frozen_string_literal: true

# After a run, the test files and the tests that took longest, each with its share of the run: CI must stay under 35
# minutes on a 2-core machine, and a new end-to-end file's cost is seen where it lands rather than guessed. A Minitest
# plugin (Minitest loads plugin_NAME_init for each name in Minitest.extensions).
module Minitest
  # Sums each file's test times, keeps each test's, and prints the slowest when the run ends.
  class SlowestFiles < AbstractReporter
    SHOWN = 12

    def initialize(io)
      super()
      @io = io
      @seconds = Hash.new(0.0)
      @tests = {}
    end

    def record(result)
      @seconds[result.source_location.first.to_s.sub("#{Dir.pwd}/", "")] += result.time
      @tests["#{result.klass}##{result.name}"] = result.time
    end

    def report
      total = @seconds.values.sum
      return if total < 60 # a file or two run by hand: nothing worth ranking

      @io.puts format("\nSlowest test files (%.0f s of tests in all):", total)
      @seconds.max_by(SHOWN, &:last).each { |file, spent| @io.puts format("  %6.1f s  %s", spent, file) }
      @io.puts "Slowest tests:"
      @tests.max_by(SHOWN, &:last).each { |test, spent| @io.puts format("  %6.1f s  %s", spent, test) }
    end
  end

  def self.plugin_slowest_files_init(options)
    reporter << SlowestFiles.new(options[:io])
  end
end

Minitest.extensions << "slowest_files"

# frozen_string_literal: true

require "test_helper"
require "json"
require_relative "../support/stored_run_figures"

# The stored runs of every kind (test/fixtures/runs), read again by the code of today: each figure their goldens
# hold (figures.golden.json, written by the code of their day) comes out the same, from the summary as stored and
# from the summary computed again from the run's records. Figures may be added, never changed or lost. Floats are
# compared exactly: the computation is deterministic, and a Float survives JSON's round trip exactly.
class StoredRunsTest < Minitest::Test
  RUNS = File.expand_path("../fixtures/runs", __dir__)
  GOLDENS = Dir.glob(File.join(RUNS, "*", StoredRunFigures::GOLDEN))

  def test_there_is_a_golden_for_every_kind_of_run
    kinds = GOLDENS.map { |golden| JSON.parse(File.read(golden)).dig("stored", "kind") }

    assert_equal %w[boot compare fleet gc heap plan soak], kinds.uniq.sort
  end

  GOLDENS.each do |golden|
    dir = File.dirname(golden)
    define_method("test_#{File.basename(dir).tr('-', '_')}_gives_the_figures_it_gave") do
      changed = changes(JSON.parse(File.read(golden)), StoredRunFigures.call(dir))

      assert_empty changed, "#{dir}: #{changed.size} figures differ from #{StoredRunFigures::GOLDEN}:\n" \
                            "#{changed.join("\n")}"
    end
  end

  private

  def changes(golden, now)
    golden.flat_map do |set, figures|
      figures.filter_map do |path, value|
        next if now[set].key?(path) && now[set][path] == value

        "#{set} #{path}: #{value.inspect} then, #{now[set].key?(path) ? now[set][path].inspect : 'none'} now"
      end
    end
  end
end

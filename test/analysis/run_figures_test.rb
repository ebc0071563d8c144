# frozen_string_literal: true

require "test_helper"

# What a comparison keeps of each of its soaks: the stored comparison's figures, made again from its soaks' own
# summaries.
class RunFiguresTest < Minitest::Test
  DIR = File.expand_path("../fixtures/runs/compare", __dir__)

  def test_each_soak_gives_the_figures_its_comparison_stored
    stored = JSON.parse(File.read(File.join(DIR, "summary.json")))["rows"].flat_map { |row| row["runs"] }
    refute_empty stored
    stored.each do |figures|
      soak = JSON.parse(File.read(File.join(DIR, File.basename(figures["run_dir"]), "summary.json")))
      made = Mallard::Analysis::RunFigures.of(Mallard::Summary::Soak.from_h(soak)).to_h.transform_keys(&:to_s)

      assert_equal figures, made.slice(*figures.keys), figures["run_dir"]
    end
  end
end

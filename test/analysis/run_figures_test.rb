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

  # YJIT's memory as the app said at its end, in KiB; nothing where no process said (a run without the agent).
  def test_yjit_memory_comes_from_inside_the_app
    stored = JSON.parse(File.read(File.join(DIR, "summary.json")))["rows"].first["runs"].first
    soak = Mallard::Summary::Soak.from_h(JSON.parse(File.read(File.join(DIR, File.basename(stored["run_dir"]),
                                                                        "summary.json"))))
    inside = { "yjit_code_region_bytes" => 557_056, "yjit_alloc_bytes" => 1_682_967, "yjit_region_bytes" => 16 << 20 }
    figures = Mallard::Analysis::RunFigures.of(soak.with(ruby: inside))

    assert_equal [544, 1644, 16_384], [figures.yjit_code_kb, figures.yjit_metadata_kb, figures.yjit_region_kb]
    assert_nil Mallard::Analysis::RunFigures.of(soak.with(ruby: nil)).yjit_code_kb
  end
end

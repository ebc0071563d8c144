# frozen_string_literal: true

require "json"

# The figures of a stored run (test/fixtures/runs/*), as test/run/stored_runs_test.rb holds them against the
# golden beside the run (figures.golden.json, written by the code of its day):
#   ruby -Ilib -Itest -rmallard -rsupport/stored_run_figures -e 'StoredRunFigures.write(ARGV[0])' RUN_DIR
# A figure is a leaf of a summary's #to_h, by its path ("configs.1.vs_baseline.rss_pct"), that is a number,
# true/false or one word (a verdict, a name, a status): sentences are left out, their wording may change. The run
# directory's own path reads as <run>, wherever the checkout is.
module StoredRunFigures
  GOLDEN = "figures.golden.json"
  # What a comparison computes again from its rows: the table's statistics and what they recommend.
  COMPARED = %i[configs recommendation resolution].freeze

  module_function

  # @return [Hash{String=>Hash{String=>Object}}] "stored": the summary as the run's kind reads it;
  #   "recomputed": the summary computed again from the run's records, without its summary.json
  def call(dir)
    opened = Mallard::RunKind.open(dir)
    stored = opened.summary
    { "stored" => figures(stored, dir), "recomputed" => figures(recomputed(opened.run, stored), dir) }
  end

  def write(dir)
    File.write(File.join(dir, GOLDEN), "#{JSON.pretty_generate(call(dir))}\n")
  end

  # A comparison has no records of its own: its summary is computed again from the rows it stored.
  def recomputed(run, stored)
    case stored.kind
    when "soak", "gc" then Mallard::Analysis::SoakSummary.call(run)
    when "boot" then Mallard::Analysis::BootSummary.call(run)
    # What reading the dumps measures of itself (seconds, MB/s, mallard's peak RSS) is new at every reading.
    when "heap" then Mallard::Analysis::HeapSummary.call(run).to_h.except(:analysis)
    when "fleet" then Mallard::Analysis::FleetSummary.call(run, fail_over: run.options["fail_over"])
    when "compare" then compared(run, stored).to_h.slice(*COMPARED)
    when "plan" then Mallard::Analysis::PlanSummary.call(run)
    else raise ArgumentError, "#{run.path}: no way to summarise a #{stored.kind} run again"
    end
  end

  def compared(run, stored)
    Mallard::Analysis::CompareSummary.call(
      rows: stored.rows, outcome: stored.outcome, run_dir: stored.run_dir, target: stored.target,
      until_resolved: stored.resolution&.pct, cpu_layout: stored.cpu_layout,
      production_cpus: (run.meta.options || {})["production_cpus"]
    )
  end

  def figures(summary, dir)
    here = File.expand_path(dir)
    leaves(summary.to_h).transform_values { |value| value.is_a?(String) ? value.gsub(here, "<run>") : value }
  end

  def leaves(value, path = nil, found = {})
    case value
    when Hash then value.each { |key, item| leaves(item, [path, key].compact.join("."), found) }
    when Array then value.each_with_index { |item, index| leaves(item, [path, index].compact.join("."), found) }
    when Numeric, true, false then found[path] = value
    when String, Symbol then found[path] = value.to_s unless value.to_s.match?(/\s/)
    end
    found
  end
end

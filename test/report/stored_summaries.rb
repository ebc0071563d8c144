# frozen_string_literal: true

require "json"

# Summaries as the views receive them, loaded from the stored runs in test/fixtures/runs. Those are schema 1:
# what summaries carry since (series, findings, validity, error_pct) is nil, so a test that needs a chart
# gives the summary a small series of its own.
module StoredSummaries
  RUNS = File.expand_path("../fixtures/runs", __dir__)

  def stored(path) = JSON.parse(File.read(File.join(RUNS, path)))

  # @param changes [Hash] members to set, as summary.json would hold them (or as values)
  def soak_summary(name, **changes)
    Mallard::Summary::Soak.from_h(stored("#{name}/summary.json").merge(changes.transform_keys(&:to_s)))
  end

  def compare_summary(path = "compare/summary.json", &edit)
    hash = stored(path)
    edit&.call(hash)
    Mallard::Summary::Compare.from_h(hash)
  end

  def stored_meta(name) = Mallard::Run::Meta.from_h(stored("#{name}/meta.json"))

  # Ten samples half a second apart from `start`, memory rising by 2 MiB each; every series measured unless
  # given as nil. processes: how many per-process PSS lines (none for a single process).
  def soak_series(start: 0.5, processes: 0, **overrides)
    times = (1..10).map { |i| (start + (i * 0.5)).round(3) }
    rss = times.each_with_index.map { |t, i| [t, 100_000 + (i * 2048)] }
    Mallard::Summary::SoakSeries.new(
      rss_kb: rss, pss_kb: rss.map { |t, kb| [t, kb - 6000] }, rps: times.map { |t| [t, 2920.3] },
      gc_minor_per_s: times.map { |t| [t, 5.0] }, gc_major_per_s: times.map { |t| [t, 0.5] },
      live_slots: times.map { |t| [t, 60_000] }, bin_s: 1.0, load_started_t: start, warmup: nil,
      processes: Array.new(processes) do |i|
        Mallard::Summary::ProcessSeries.new(pid: 100 + i, role: i.zero? ? "main" : "child",
                                            pss_kb: rss.map { |t, kb| [t, kb / processes] })
      end, **overrides
    )
  end
end

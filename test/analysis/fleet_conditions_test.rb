# frozen_string_literal: true

require "test_helper"

# What a fleet's processes ran in, from the exporter's condition series, and what the lab's comparison ran in: set
# against each other where both know them.
class FleetConditionsTest < Minitest::Test
  Series = Mallard::Run::FleetSeries
  RUBY = { "version" => "3.3.8", "yjit" => "true" }.freeze

  def test_production_is_each_series_last_point_the_median_and_the_most_common_label
    conditions = Mallard::Analysis::FleetConditions.call(
      "cpus" => [series({ "role" => "master", "instance" => "10.0.0.1:9394" }, 2, 4),
                 series({ "role" => "worker", "instance" => "10.0.0.1:9394" }, 4, 4),
                 series({ "role" => "worker", "instance" => "10.0.0.1:9395" }, 4, 2)],
      "threads" => [series({ "role" => "master" }, 0), series({}, 16), series({}, 16)],
      "ruby" => [series(RUBY, 1), series(RUBY, 1), series({ "version" => "3.3.7", "yjit" => "false" }, 1)],
      "malloc" => [series({ "allocator" => "jemalloc" }, 1)],
      "mix" => [series({ "method" => "GET", "path" => "/" }, 20, 40),
                series({ "method" => "POST", "path" => "/a" }, 10)],
      "rate" => [series({ "instance" => "a" }, 0, 120, 80), series({ "instance" => "b" }, 150, 90),
                 series({ "instance" => "c" }, 0, 0)],
      "served" => [series({ "instance" => "a" }, 100, 2000), series({ "instance" => "b" }, 5000),
                   series({ "instance" => "c" }, 0)],
      "trees" => %w[10.0.0.1:9394 10.0.0.1:9395 10.0.0.1:9396 10.0.0.2:9394].map { |at| series({ "instance" => at }) }
    )

    assert_equal({ ruby: "3.3.8", yjit: true, cpus: 4, threads: 16, workers: 2, malloc: "jemalloc", rate: 135.0,
                   served: 3500, trees_per_host: 3,
                   mix: [{ method: "GET", path: "/", share: 0.75 }, { method: "POST", path: "/a", share: 0.25 }] },
                 conditions.to_h)
    assert_nil Mallard::Analysis::FleetConditions.call({})
  end

  # A host's CPUs are shared by every tree on it: the other selector's trees count, another host's do not; a run
  # stored before every exporter was asked for counts its own.
  def test_trees_on_a_host_are_every_exporters_there
    cpus = [series({ "instance" => "10.0.0.1:9394" }, 2), series({ "instance" => "10.0.0.1:9395" }, 2),
            series({ "instance" => "10.0.0.2:9394" }, 2)]
    trees = %w[10.0.0.1:9394 10.0.0.1:9395 10.0.0.1:7000 10.0.0.1:7001 10.0.0.2:9394 10.0.0.2:7000 10.0.0.3:7000]
    conditions = ->(more) { Mallard::Analysis::FleetConditions.call({ "cpus" => cpus }.merge(more)) }

    assert_equal 3, conditions.call("trees" => trees.map { |at| series({ "instance" => at }, 1) }).trees_per_host
    assert_equal 2, conditions.call({}).trees_per_host
  end

  # The stored comparison of the demo app, made before runs kept their Puma counts: its Ruby, CPUs, the
  # recommendation's malloc, its load's one path, the rate its runs served and the requests that was in their 3 s are
  # known, its threads are not.
  def test_the_labs_conditions_come_from_the_comparison_and_its_row
    opened = Mallard::RunKind.open(File.expand_path("../fixtures/runs/compare", __dir__))
    prediction = Mallard::Analysis::Prediction.call(opened.summary, config: nil, run: "compare", meta: opened.run.meta)

    assert_equal({ ruby: "3.1.2", yjit: nil, cpus: 2, threads: nil, workers: nil, malloc: "glibc", rate: 1379.9,
                   served: 4140, trees_per_host: 1, mix: [{ method: "GET", path: "/", share: 1.0 }] },
                 prediction.conditions.to_h)
  end

  # A run bounded by --requests served those, where its rate would not have reached its seconds' worth.
  def test_a_run_bounded_by_requests_served_them
    opened = Mallard::RunKind.open(File.expand_path("../fixtures/runs/compare", __dir__))
    meta = opened.run.meta.with(options: opened.run.meta.options.merge("requests" => 1000))
    prediction = Mallard::Analysis::Prediction.call(opened.summary, config: nil, run: "compare", meta: meta)

    assert_equal 1000, prediction.conditions.served
  end

  # The request mix differs by the method and path whose shares differ most.
  def test_only_conditions_both_sides_know_and_differ_in_are_said
    lab = Mallard::Summary::Conditions.new(ruby: "3.3.8", cpus: 2, threads: 8, malloc: "glibc",
                                           mix: [share("/", 0.5), share("/rows", 0.5)])
    production = Mallard::Summary::Conditions.new(ruby: "3.3.8", cpus: 4, threads: 16, workers: 4, malloc: "glibc",
                                                  mix: [share("/", 0.6), share("/rows", 0.1), share("/b", 0.3)])
    prediction = Mallard::Summary::Prediction.new(pct: -20.0, ci: [-25.0, -15.0], conditions: lab)
    change = Mallard::Summary::Change.new(pct: -21.0, ci: [-23.0, -19.0])
    expected = Mallard::Analysis::Expectation.call(prediction, change, processes: [8, 8], window_s: 60, metric: "pss",
                                                                       conditions: production)

    gaps = expected.differing.map { |gap| gap.to_h.values }
    said = Mallard::Report::FleetSentences.new(Mallard::Summary::Fleet.new(expectation: expected)).expectation

    assert_equal [["cpus", 2, 4, nil], ["threads", 8, 16, nil], ["mix", 0.5, 0.1, "GET /rows"]], gaps
    assert_includes said, " Lab and production differ in CPUs a process may use (2 in the lab, 4 in production), " \
                          "Puma's pool threads (8 in the lab, 16 in production), the request mix (GET /rows 50% of " \
                          "requests in the lab, 10% in production)."
  end

  def test_mixes_within_five_points_are_alike
    lab = Mallard::Summary::Conditions.new(mix: [share("/", 0.75), share("/rows", 0.25)])
    production = Mallard::Summary::Conditions.new(mix: [share("/", 0.72), share("/rows", 0.27), share("/x", 0.01)])

    assert_empty Mallard::Analysis::ConditionGaps.call(lab, production)
    assert_empty Mallard::Analysis::ConditionGaps.call(lab, production.with(mix: [])), "production served none"
  end

  # A lab flat out against production's quieter trees differs in its rate; two runs of one load do not.
  def test_rates_differ_from_a_quarter_apart
    lab = Mallard::Summary::Conditions.new(rate: 1379.9)
    gaps = Mallard::Analysis::ConditionGaps.call(lab, lab.with(rate: 135.0))

    assert_equal([["rate", 1379.9, 135.0, nil]], gaps.map { |gap| gap.to_h.values })
    assert_match(/requests a second a tree \(1379.9 in the lab, 135.0 in production\)/,
                 Mallard::Report::Words.condition_gaps(gaps))
    assert_empty Mallard::Analysis::ConditionGaps.call(lab.with(rate: 140.0), lab.with(rate: 135.0))
    assert_empty Mallard::Analysis::ConditionGaps.call(lab, lab.with(rate: nil)), "an exporter that counts no requests"
  end

  # A short lab run against processes that have served far longer: a heap that creeps is younger in the lab.
  def test_requests_served_differ_from_a_quarter_apart
    lab = Mallard::Summary::Conditions.new(served: 4140)
    gaps = Mallard::Analysis::ConditionGaps.call(lab, lab.with(served: 52_000))

    assert_equal([["served", 4140, 52_000, nil]], gaps.map { |gap| gap.to_h.values })
    assert_match(/requests a tree had served when its memory was read \(4140 in the lab, 52000 in production\)/,
                 Mallard::Report::Words.condition_gaps(gaps))
    assert_empty Mallard::Analysis::ConditionGaps.call(lab, lab.with(served: 4500))
    refute_empty Mallard::Analysis::ConditionGaps.call(lab, lab.with(served: 5200)), "whole counts, 1.256 apart"
  end

  # What to do about it: the seconds of load that serve as many at the lab's rate, said where the lab served fewer.
  def test_a_lab_that_served_fewer_is_told_how_long_to_run
    lab = Mallard::Summary::Conditions.new(rate: 900.0, served: 36_000)
    prediction = Mallard::Summary::Prediction.new(pct: -20.0, ci: [-25.0, -15.0], conditions: lab)
    change = Mallard::Summary::Change.new(pct: -30.0, ci: [-33.0, -27.0])
    expect = lambda do |served|
      Mallard::Analysis::Expectation.call(prediction, change, processes: [8, 8], window_s: 60, metric: "rss",
                                                              conditions: lab.with(served: served))
    end
    longer = expect.call(52_000)
    said = Mallard::Report::FleetSentences.new(Mallard::Summary::Fleet.new(expectation: longer)).expectation

    assert_equal 58, longer.duration_alike_s
    assert_includes said, "(36000 in the lab, 52000 in production). Runs of about 58 s (--duration) would serve as " \
                          "many requests a tree at the lab's rate."
    assert_nil expect.call(20_000).duration_alike_s, "production served fewer: no longer run makes it younger"
    assert_nil expect.call(40_000).duration_alike_s, "alike"
  end

  private

  def share(path, value) = Mallard::Summary::RequestShare.new(method: "GET", path: path, share: value)

  def series(labels, *values)
    Series.new(labels: labels, points: values.each_with_index.map { |value, i| [1000.0 + i, value.to_f] })
  end
end

# frozen_string_literal: true

require "test_helper"

# A comparison's sentences other than its recommendation's (RecommendationSentencesTest), worded by the presenter
# alone from the data analysis decided: what the agent cost the baseline, and which intervals --until-resolved left
# too wide.
class CompareSentencesTest < Minitest::Test
  RunFigures = Mallard::Summary::RunFigures

  def test_the_agents_cost_in_throughput_cpu_and_memory_and_that_it_may_move_memory_differences
    with = [[3327.0, 0.31, 130_196], [3398.0, 0.30, 119_664]].map do |rps, cpu, rss|
      RunFigures.new(rps: rps, cpu_ms_per_request: cpu, steady_rss_kb: rss)
    end
    said = agent_cost(with, RunFigures.new(rps: 3680.5, cpu_ms_per_request: 0.2828, steady_rss_kb: 144_596))

    assert_match(%r{\AThe agent's cost here: glibc served 3362\.5 req/s with it \(median of 2\) and 3680\.5 without },
                 said)
    assert_match(%r{\(one run\): -8\.6% req/s, CPU per request \+7\.9%; steady RSS 122\.0 MiB with it, 141\.2 MiB },
                 said)
    assert_match(/without \(-13\.6%\)\. One run without it has no interval, and the runs with it spread from 3327\.0 /,
                 said)
    assert_match(/differences in memory may be partly its doing\.\z/, said)
  end

  # compare --gc: each set the baseline's GC suggested, or did not, with its reason and figures.
  def test_what_the_baselines_gc_suggested_and_why
    activity = Mallard::Summary::Gc.new(
      runs: 40, major: 2, major_by: { "force" => 2 }, minor_by: { "malloc" => 12 },
      heap_allocated_pages: Mallard::Summary::Span.new(start: 900, end: 900),
      heap_live_slots: Mallard::Summary::Span.new(start: 30_000, end: 40_000),
      heap_available_slots: Mallard::Summary::Span.new(start: 400_000, end: 400_000)
    )
    summary = Mallard::Summary::Compare.new(gc_suggestions: Mallard::Analysis::GcCandidates.call(activity))

    assert_equal(["gc-growth: 10% of the heap's slots were live under load: a heap grown 1.8× at a time, mostly " \
                  "empty — RUBY_GC_HEAP_GROWTH_FACTOR=1.1 RUBY_GC_HEAP_GROWTH_MAX_SLOTS=10000",
                  "not suggested, gc-free: no major GC of the app's ran under load, so no page would be freed",
                  "gc-malloc: 12 of 40 GCs were triggered by malloc'ed memory passing its limit — " \
                  "RUBY_GC_MALLOC_LIMIT_MAX=8388608 RUBY_GC_OLDMALLOC_LIMIT_MAX=33554432"],
                 Mallard::Report::CompareSentences.new(summary).gc_suggestions)
  end

  def test_one_run_with_the_agent_and_memory_moved_alike
    assert_match(/One run without it has no interval\. Read mallard's absolute figures/,
                 agent_cost([RunFigures.new(rps: 100.0)], RunFigures.new(rps: 110.0)))
    said = agent_cost([RunFigures.new(rps: 100.0, steady_rss_kb: 102_400)],
                      RunFigures.new(rps: 100.0, steady_rss_kb: 97_280))

    assert_match(/Every configuration carries it alike\.\z/, said)
    refute_match(/CPU per request/, said)
  end

  def test_an_unmeasured_cost_says_why_and_a_stored_line_is_shown
    said = words(agent_cost: Mallard::Analysis::AgentCost.unmeasured("exited before it was up")).agent_cost

    assert_equal "The agent's cost here was not measured: glibc's run without it was not a measurement (exited " \
                 "before it was up), so mallard's absolute req/s and CPU figures are read without knowing that floor.",
                 said
    stored = Mallard::Summary::AgentCost.new(rps_pct: -3.0, sentence: "as an older mallard put it")

    assert_equal "as an older mallard put it", words(agent_cost: stored).agent_cost
    assert_nil words.agent_cost
  end

  def test_the_intervals_left_too_wide_are_named_with_their_half_width
    too_wide = [%w[jemalloc cpu], %w[mimalloc memory]].zip([12.04, nil]).map do |(name, figure), half_width|
      Mallard::Summary::Unresolved.new(name: name, figure: figure, half_width: half_width)
    end
    resolution = Mallard::Summary::Resolution.new(pct: 3.0, resolved: false, too_wide: too_wide)

    assert_equal ["jemalloc CPU per request: ±12.0 points", "mimalloc memory: no interval yet"],
                 words(resolution: resolution).unresolved
    jobs = Mallard::Run::TargetInfo.new(kind: "sidekiq")

    assert_equal "jemalloc CPU per job: ±12.0 points", words(resolution: resolution, target: jobs).unresolved.first
  end

  def test_a_resolution_stored_with_its_lines_shows_them
    stored = Mallard::Summary::Resolution.from_h("pct" => 3.0, "resolved" => false,
                                                 "unresolved" => ["jemalloc memory: ±4.0 points"])

    assert_equal ["jemalloc memory: ±4.0 points"], words(resolution: stored).unresolved
    assert_empty words.unresolved
  end

  private

  def agent_cost(with, without) = words(agent_cost: Mallard::Analysis::AgentCost.call(with, without)).agent_cost

  def words(**members)
    Mallard::Report::CompareSentences.new(Mallard::Summary::Compare.new(baseline: "glibc", configs: [], **members))
  end
end

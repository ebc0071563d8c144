# frozen_string_literal: true

require "test_helper"

# A comparison's sentences other than its recommendation's (RecommendationSentencesTest), worded by the presenter
# alone from the data analysis decided: what the agent cost the baseline, and which intervals --until-resolved left
# too wide.
class CompareSentencesTest < Minitest::Test
  def test_the_agents_cost_pooled_over_the_configurations_with_intervals
    cost = Mallard::Summary::AgentCost.new(configurations: 3, rps_pct: -8.64, rps_pct_ci: [-12.0, -5.1],
                                           rps_finding: "different", cpu_pct: 7.9, cpu_pct_ci: [-1.0, 17.0],
                                           cpu_finding: "no_difference", rss_pct: -1.0, rss_pct_ci: [-4.0, 2.0],
                                           rss_finding: "no_difference")

    assert_equal "The agent's cost here (each configuration's run with it against its runs without it, 3 " \
                 "configurations): req/s -8.6% (-12.0 … -5.1), CPU per request +7.9% (-1.0 … +17.0), steady memory " \
                 "-1.0% (-4.0 … +2.0). It moved req/s beyond the runs' noise: what the runs with it explain " \
                 "(verdicts, ledger), read with that in mind.", words(agent_cost: cost).agent_cost
  end

  # An older summary's figures: one run without the agent, no interval.
  def test_one_pair_or_an_older_summarys_single_run_is_only_an_estimate
    older = Mallard::Summary::AgentCost.from_h("rps_pct" => -8.6, "cpu_pct" => 9.6, "rps_with" => 3362.5)

    assert_equal "The agent's cost here (one run without it against glibc's runs with it): req/s -8.6%, CPU per " \
                 "request +9.6%. One pair has no interval, so this is an estimate, not a finding.",
                 words(agent_cost: older).agent_cost
    quiet = Mallard::Summary::AgentCost.new(configurations: 2, rps_pct: 0.5, rps_pct_ci: [-3.0, 4.0],
                                            rps_finding: "no_difference")

    assert_match(/No figure moved beyond the runs' own noise\.\z/, words(agent_cost: quiet).agent_cost)
  end

  # A row that failed because the app could not take the load says what load it would take, as a soak does.
  def test_a_row_failed_on_saturation_says_what_load_the_app_would_take
    saturation = Mallard::Summary::Saturation.new(timeouts: 40, timeout_s: 2, served_rps: 310.5, concurrency: 64,
                                                  suggest_concurrency: 8, suggest_rate: 250)
    config = Mallard::Summary::Config.new(name: "jemalloc", failed: "most requests failed", saturation: saturation)

    assert_equal "failed: most requests failed; 40 of them timed out (no answer within 2 s): the app was saturated, " \
                 "answering 310.5 req/s here to 64 connections; try `--concurrency 8` or `--rate 250`, or " \
                 "`--concurrency auto` to find the load it serves", words.unmeasured(config)
    assert_equal "unavailable: not run", words.unmeasured(Mallard::Summary::Config.new(name: "mimalloc"))
  end

  def test_which_runs_the_figures_come_from
    assert_match(/\AFigures from runs with no mallard code in the app/, words(figures_from: "clean").figures_from)
    assert_match(/every run here carried the agent/, words(figures_from: "instrumented").figures_from)
    assert_nil words.figures_from
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
                  "RUBY_GC_MALLOC_LIMIT_MAX=8388608 RUBY_GC_OLDMALLOC_LIMIT_MAX=33554432",
                  "not suggested, gc-after-boot: mallard runs a line after boot only in a Rack app it serves with " \
                  "Puma"],
                 Mallard::Report::CompareSentences.new(summary).gc_suggestions)
  end

  # The action after boot, with the figures its finding rests on, grouped as counts are everywhere.
  def test_the_action_after_boot_suggested_and_why
    activity = Mallard::Summary::Gc.new(
      runs: 80, major: 2, heap_live_slots: Mallard::Summary::Span.new(start: 1_865_469, end: 542_302),
      heap_available_slots: Mallard::Summary::Span.new(start: 1_865_668, end: 542_644),
      old_objects: Mallard::Summary::Span.new(start: 1_510_276, end: 192_425)
    )
    quiet = activity.with(major: 0, heap_live_slots: Mallard::Summary::Span.new(start: 1_865_469, end: 1_800_000))
    said = [activity, quiet].map do |gc|
      suggestions = Mallard::Analysis::GcCandidates.call(gc, after_boot: "warmup")
      Mallard::Report::CompareSentences.new(Mallard::Summary::Compare.new(gc_suggestions: suggestions))
                                       .gc_suggestions.last
    end

    assert_equal ["gc-after-boot: 29% of the 1,865,668 slots the heap held as the load began were live at its end: " \
                  "the boot left far more than the app keeps — after_boot=warmup",
                  "gc-after-boot: no major GC of the app's ran under load, so the 1,510,276 old objects the boot " \
                  "left were never collected; a full GC once it has booted frees those that are garbage — " \
                  "after_boot=warmup"], said
  end

  def test_an_unmeasured_cost_says_why_and_a_stored_line_is_shown
    said = words(agent_cost: Mallard::Analysis::AgentCost.unmeasured("exited before it was up")).agent_cost

    assert_equal "The agent's cost here was not measured: no configuration's run with it was a measurement (exited " \
                 "before it was up), so the table's figures are not explained by an instrumented run either.", said
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

  def words(**members)
    Mallard::Report::CompareSentences.new(Mallard::Summary::Compare.new(baseline: "glibc", configs: [], **members))
  end
end

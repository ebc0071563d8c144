# frozen_string_literal: true

require "test_helper"
require "cgi"
require_relative "stored_summaries"
require_relative "heap_summaries"
require_relative "container_summaries"
require_relative "sharing_summaries"
require_relative "role_summaries"

# Each kind of run has one presenter of the sentences its views share (PRESENTERS: a gc run is a soak shown GC first):
# every sentence it gives for a summary appears, word for word, in the terminal view and in the HTML page of that
# summary.
class SameSentencesTest < Minitest::Test
  include HeapSummaries
  include ComparisonRows
  include SharingSummaries
  include RoleSummaries

  LIVE_SET = { "verdict" => "inconclusive", "slope" => 12.3, "ci" => [-4.5, 29.1], "unit" => "slots per 1,000 requests",
               "samples" => 9, "observed" => 16_290, "tolerance" => 1000.0, "needed" => 52_000,
               "measure" => Mallard::Analysis::LiveSet::AFTER_EVERY_GC, "majors" => 3 }.freeze
  SETTINGS = [{ "name" => "RUBY_GC_HEAP_GROWTH_FACTOR", "value" => "1.1" },
              { "name" => "RUBY_GC_HEAP_INIT_SLOTS", "value" => "5000", "unread" => "per_pool",
                "ruby_version" => "3.4.1" }]
             .freeze
  UNDECIDED = { overall: "inconclusive", finding: "undecided", memory: "growing", live_set: "inconclusive",
                app_held: "inconclusive", rising: "malloc held free", decide_units: 12_000, decide_minutes: 3.5 }.freeze
  # The ledger's judgement, decided now (its finding), under 40 MiB held free.
  LEDGER = { "finding" => "app_flat", "allocator" => "glibc", "unit" => "KiB per 1,000 requests", "readings" => 1,
             "parts" => [{ "name" => "malloc held free", "kb" => 40_960, "verdict" => "growing" }] }.freeze
  # What the agent cost the baseline, as analysis decides it.
  AGENT_COST = { "configurations" => 2, "rps_pct" => -8.6, "rps_pct_ci" => [-12.0, -5.1], "rps_finding" => "different",
                 "rss_pct" => -13.6, "rss_pct_ci" => [-20.0, -7.0], "rss_finding" => "different" }.freeze
  # Whether major GCs slowed as the live set grew, as analysis decides it.
  RELATION = { "finding" => "no_relation", "spearman" => 0.2, "ci" => [-0.31, 0.62], "p_value" => 0.41, "majors" => 12,
               "before_load" => 0 }.freeze
  PRESENTERS = { "soak" => Mallard::Report::SoakSentences, "gc" => Mallard::Report::SoakSentences,
                 "heap" => Mallard::Report::HeapSentences, "compare" => Mallard::Report::CompareSentences,
                 "boot" => Mallard::Report::BootSentences, "fleet" => Mallard::Report::FleetSentences }.freeze

  def test_a_soaks_sentences_read_the_same_in_both_views
    %w[soak-leaky soak-workers soak-interrupted].each do |name|
      assert_same_sentences(soak(name), stored_meta(name), at_least: 3)
    end
  end

  # A load that failed on timeouts: the reason says the app was saturated, and what to run instead, in both views.
  def test_a_saturated_soaks_failure_reads_the_same_in_both_views
    saturation = Mallard::Summary::Saturation.new(timeouts: 73, timeout_s: 5, served_rps: 8.2, concurrency: 10,
                                                  suggest_concurrency: 4, suggest_rate: 6.1)
    summary = soak("soak-leaky").with(status: "failed", cause: "errors", verdict: nil, saturation: saturation,
                                      reason: "8.4% of requests failed: a failed measurement, not a result")

    assert_same_sentences(summary, stored_meta("soak-leaky"), at_least: 3)
    assert_includes sentences(summary), Mallard::Report::SoakSentences.new(summary).saturation
  end

  # Memory as the container counts it (the subject's cgroup, --memory-limit watched), and a run the limit ended.
  def test_a_soaks_cgroup_and_memory_limit_read_the_same_in_both_views
    container = Mallard::Summary::Container.new(**ContainerSummaries::CONTAINER)
    limit = Mallard::Summary::MemoryLimit.new(**ContainerSummaries::LIMIT)
    summary = soak("soak-workers").with(container: container, memory_limit: limit)
    ended = summary.with(status: "failed", cause: "memory_limit", reason: "stored", verdict: nil,
                         memory_limit: limit.with(**ContainerSummaries::CROSSED))

    assert_same_sentences(summary, stored_meta("soak-workers"), at_least: 6)
    assert_same_sentences(ended, stored_meta("soak-workers"), at_least: 5)
    assert_equal 3, Mallard::Report::SoakSentences.new(summary).container.size
  end

  # Copy-on-write decay: a line per worker, and what its figures are.
  def test_a_soaks_sharing_decay_reads_the_same_in_both_views
    summary = soak("soak-workers").with(sharing_decay: sharing_decay)

    assert_same_sentences(summary, stored_meta("soak-workers"), at_least: 6)
    assert_equal 3, Mallard::Report::SoakSentences.new(summary).sharing.size
  end

  # A job backend's memory per role: each role's verdict and ledger, and what the figures are.
  def test_a_soaks_roles_read_the_same_in_both_views
    summary = soak("soak-workers").with(roles: roles)

    assert_same_sentences(summary, stored_meta("soak-workers"), at_least: 9)
    assert_equal 9, Mallard::Report::SoakSentences.new(summary).per_role.all.size
  end

  def test_a_gc_runs_sentences_read_the_same_in_both_views
    summary = soak("soak-leaky").with(kind: "gc")

    assert_same_sentences(summary, stored_meta("soak-leaky"), at_least: 6)
  end

  def test_a_comparisons_sentences_read_the_same_in_both_views
    summary = compare_summary do |hash|
      hash["configs"][0]["invalid_runs"] = 1
      hash["rows"][0]["invalid_runs"] = [{ "problems" => ["the machine was busy with other work"] }]
      hash["agent_cost"] = AGENT_COST
      hash["figures_from"] = "clean"
    end

    assert_same_sentences(summary, stored_meta("compare"), at_least: 4)
  end

  # A comparison decided now: its decision worded by the presenter, with trade-offs, a configuration passed over
  # and --until-resolved's outcome, in both views.
  def test_a_decided_comparisons_recommendation_and_resolution_read_the_same_in_both_views
    rows = [row("glibc", rss: 100_000), row("glibc-arena2", rss: 88_000),
            row("jemalloc", rss: 92_300, rps: 535.0, p99: 23.0), row("mimalloc", rss: 70_000, rps: 400.0)]
    summary = Mallard::Analysis::CompareSummary.call(rows: rows, outcome: Mallard::Run::Outcome.complete,
                                                     run_dir: "/runs/x", target: nil, until_resolved: 5.0,
                                                     gc_suggestions: Mallard::Analysis::GcCandidates.call(nil))
    sentences = Mallard::Report::CompareSentences.new(summary)

    assert_match(/\AResolved: every memory and CPU interval is within ±5.0 points after 3 repeats\z/,
                 sentences.resolution.first)
    assert_equal(%w[glibc-arena2 jemalloc mimalloc], sentences.recommendation.trade_offs.map(&:first))
    assert_same_sentences(summary, stored_meta("compare"), at_least: 6)
  end

  # compare --yjit: its table's heading and the size chosen, in both views.
  def test_a_yjit_comparisons_decision_reads_the_same_in_both_views
    rows = [["off", 100.0, 50_000], ["16", 151.0, 54_000], ["on", 152.0, 56_000]].map do |mode, rps, rss|
      memory = mode == "off" ? {} : { yjit_code_kb: 512, yjit_metadata_kb: 1536 }
      with_agent = Mallard::Summary::RunFigures.new(steady_rss_kb: rss, rps: rps, problems: [], **memory)
      row("glibc/yjit-#{mode}", rss: rss, rps: rps, yjit: mode, instrumented_runs: [with_agent])
    end
    summary = Mallard::Analysis::CompareSummary.call(rows: rows, outcome: Mallard::Run::Outcome.complete,
                                                     run_dir: "/runs/x", target: nil)

    assert_equal "glibc/yjit-16", summary.yjit_choices.first.choice
    assert_same_sentences(summary, stored_meta("compare"), at_least: 5)
  end

  # compare --like: what the lab took of production's conditions (its request mix too) and what it still differs in,
  # in both views.
  def test_a_comparison_set_like_production_says_so_in_both_views
    summary = Mallard::Summary::Compare.from_h(stored("compare/summary.json")).with(like: Mallard::Summary::Like.new(
      prometheus: "http://127.0.0.1:9090", selector: '{job="web"}', applied: { "threads" => 16, "cpus" => 2 },
      differing: [Mallard::Summary::ConditionGap.new(name: "ruby", lab: "3.1.2", production: "3.3.8"),
                  Mallard::Summary::ConditionGap.new(name: "mix", path: "GET /", lab: 0.8, production: 0.6)],
      mix: [request_share("/", 0.8), request_share("/rows", 0.2)],
      mix_left: [Mallard::Summary::MixLeft.new(reason: "method", share: 0.25)]
    ))

    assert_equal "Set as production runs ({job=\"web\"} at http://127.0.0.1:9090, from its exporter): Puma's pool " \
                 "threads 16, CPUs a process may use 2, requests GET / 80%, GET /rows 20% (not sent, of production's " \
                 "requests: 25% by methods other than GET). Still unlike production in Ruby (3.1.2 in the lab, 3.3.8 " \
                 "in production), the request mix (GET / 80% of requests in the lab, 60% in production).",
                 Mallard::Report::CompareSentences.new(summary).like
    assert_same_sentences(summary, stored_meta("compare"), at_least: 3)
    none = summary.with(like: summary.like.with(mix: [], differing: []))
    assert_match(/CPUs a process may use 2, its own paths \(not sent, of production's requests: 25% /,
                 Mallard::Report::CompareSentences.new(none).like, "none of production's paths could be sent")
  end

  # Trees of several processes in parts, and the refork row's shared memory against the plain one's, in both views.
  def test_a_comparisons_trees_in_parts_read_the_same_in_both_views
    refork = tree_row("glibc/2x5-refork", 60_000)
    rows = [tree_row("glibc/2x5", 40_000), refork.with(runs: refork.runs.map { |run| run.with(reforks: 1) })]
    summary = Mallard::Analysis::CompareSummary.call(rows: rows, outcome: Mallard::Run::Outcome.complete,
                                                     run_dir: "/runs/x", target: nil)
    trees = Mallard::Report::CompareSentences.new(summary).trees

    assert_equal 3, trees.size
    assert_includes trees.last, "glibc/2x5-refork: shared 58.6 MiB (57.2 … 60.1) (+50.0% (+46.6 … +53.4) against " \
                                "glibc/2x5's) · private 48.8 MiB"
    assert trees.last.end_with?(" · reforked 1, 1, 1 times"), trees.last
    refute_includes trees[1], "reforked", "a shape that does not refork"
    assert_same_sentences(summary, stored_meta("compare"), at_least: 5)
  end

  def test_a_boots_sentences_read_the_same_in_both_views
    stored = Mallard::Summary::Boot.from_h(stored("boot/summary.json"))
    total = stored.total.with(parts: stored.total.parts.with(malloc_kb: nil))
    summary = stored.with(total: total, malloc_note: "mimalloc counts nothing outside its debug builds")

    assert_same_sentences(summary, stored_meta("boot"), at_least: 4)
  end

  # A boot whose probe read malloc only for the total: said in both views.
  def test_a_boots_malloc_read_only_for_the_total_reads_the_same_in_both_views
    stopped = Mallard::Summary::MallocStopped.new(repeats: 1, of: 5, first: "one reading took 12.5 ms")
    summary = Mallard::Summary::Boot.from_h(stored("boot/summary.json")).with(malloc_stopped: stopped)

    assert_same_sentences(summary, stored_meta("boot"), at_least: 4)
  end

  def test_a_heap_runs_sentences_read_the_same_in_both_views
    assert_same_sentences(heap_summary, stored_meta("soak-leaky"), at_least: 6)
  end

  # How a heap run ended: its dumps missing, or its traced app's load failed with all three dumps written.
  def test_a_heap_runs_ending_reads_the_same_in_both_views
    unmeasured = { "window" => nil, "sites" => [], "retained_count" => nil, "retained_bytes" => nil,
                   "significant_bytes" => nil }
    stopped = heap_summary(heap_hash.merge("status" => "interrupted", "cause" => "signal", "reason" => "interrupted",
                                           "shortfall" => { "written" => 1 }, **unmeasured))
    overloaded = heap_summary(heap_hash.merge("status" => "failed", "cause" => "errors", "traced_load_failed" => true,
                                              "reason" => "31% of requests failed"))

    assert_same_sentences(stopped, stored_meta("soak-leaky"), at_least: 3)
    assert_same_sentences(overloaded, stored_meta("soak-leaky"), at_least: 7)
  end

  # A fleet has no HTML page: its sentences are its terminal's.
  def test_a_fleets_sentences_are_in_its_terminal
    kind = Mallard::RunKind.named("fleet")
    summary = Mallard::Summary::Fleet.from_h(
      "kind" => "fleet", "status" => "complete", "methodology" => "Hodges–Lehmann shift", "metric" => "pss",
      "since_s" => 60, "step_s" => 1, "a" => { "name" => "A", "processes" => 2 },
      "b" => { "name" => "B", "processes" => 2 }, "smallest_sizes" => [[4, 4]],
      "change" => { "pct" => -3.0, "ci" => nil, "noise_pct" => 1.0 }
    )
    terminal = words(printed { |io| kind.terminal(summary, color: Mallard::Report::Color::Plain.new).render(io) })

    refute kind.html?
    assert_equal 2, sentences(summary).size
    sentences(summary).each { |sentence| assert_includes terminal, words(sentence) }
  end

  # A fleet that failed --fail-over says why in its terminal.
  def test_a_fleets_failed_gate_is_in_its_terminal
    summary = Mallard::Summary::Fleet.from_h(
      "kind" => "fleet", "status" => "complete", "methodology" => "Hodges–Lehmann shift", "metric" => "pss",
      "since_s" => 60, "step_s" => 1, "a" => { "name" => "A", "processes" => 5 },
      "b" => { "name" => "B", "processes" => 5 }, "smallest_sizes" => [[4, 4]],
      "change" => { "pct" => 23.4, "ci" => [20.1, 26.0], "noise_pct" => 1.0, "finding" => "different" },
      "fail_over" => { "threshold_pct" => 5, "failed" => true, "pct" => 23.4, "ci" => [20.1, 26.0] }
    )
    kind = Mallard::RunKind.named("fleet")
    terminal = words(printed { |io| kind.terminal(summary, color: Mallard::Report::Color::Plain.new).render(io) })

    assert_equal 2, sentences(summary).size, "the interval and the gate: there is a verdict"
    sentences(summary).each { |sentence| assert_includes terminal, words(sentence) }
  end

  private

  def request_share(path, share) = Mallard::Summary::RequestShare.new(method: "GET", path: path, share: share)

  # A stored soak with a live set, GC settings and pauses, and its verdict decided now (a finding for the presenter to
  # word), so that every sentence has something to say.
  def soak(name)
    summary = soak_summary(name, series: soak_series, live_set: LIVE_SET, ledger: LEDGER, headroom_kb: 40_960)
    gc = summary.gc.with(settings: SETTINGS.map { |setting| Mallard::Summary::GcSetting.from_h(setting) },
                         pause_ms: Mallard::Summary::Percentiles.new(p50: 0.41, p90: 0.9, p99: 2.35, max: 7.5),
                         major_by: { "nofree" => 3, "oldgen" => 1 }, minor_by: { "newobj" => 40 },
                         major_time_vs_live_set: Mallard::Summary::Correlation.from_h(RELATION))
    summary.with(verdict: summary.verdict&.with(**UNDECIDED), gc: gc)
  end

  def assert_same_sentences(summary, meta, at_least:)
    kind = Mallard::RunKind.named(summary.kind)
    said = sentences(summary)
    terminal = words(printed { |io| kind.terminal(summary, color: Mallard::Report::Color::Plain.new).render(io) })
    html = words(CGI.unescapeHTML(printed { |io| Mallard::Report::Html.new(summary, meta: meta).render(io) }
                                    .gsub(/<[^>]*>/, " ")))

    assert_operator said.size, :>=, at_least, said.inspect
    said.each do |sentence|
      assert_includes terminal, words(sentence), "terminal view of #{summary.kind}"
      assert_includes html, words(sentence), "HTML page of #{summary.kind}"
    end
  end

  def sentences(summary) = PRESENTERS.fetch(summary.kind).new(summary).all

  # Line breaks and indentation are layout, not wording.
  def words(text) = text.split.join(" ")

  def printed(&)
    StringIO.new.tap(&).string
  end
end

# frozen_string_literal: true

require "test_helper"
require "mallard"

# The words of a decision (Analysis::Recommendation's), for the cases the recommendation's own test decides: each
# sentence a view shows, worded by the presenter alone.
class RecommendationSentencesTest < Minitest::Test
  include ComparisonRows

  Comparison = Mallard::Analysis::Comparison
  Recommendation = Mallard::Analysis::Recommendation

  NO_DIFFERENCE = "No configuration used detectably less memory than glibc in this run; keep glibc " \
                  "(short-lived or single-threaded processes often show no difference)."

  def recommend(*rows, jobs: false)
    found = comparison(*rows)
    worded(Recommendation.call(found), jobs: jobs, metric: found.metric)
  end

  # The presenter's sentences, keyed as the views place them.
  def worded(decision, jobs: false, metric: "steady_rss_kb")
    words = Mallard::Report::RecommendationSentences.new(decision, unit: jobs ? "jobs" : "requests", metric: metric)
    { name: decision.name, reason: words.reason, rejected: words.rejections.map do |name, why|
                                                             { name: name, why: why }
                                                           end,
      trade_offs: words.trade_offs.map { |name, text| { name: name, text: text } } }
  end

  def test_the_configuration_using_least_memory_wins
    recommendation = recommend(row("jemalloc", rss: 80_000), row("glibc-arena2", rss: 90_000),
                               row("tcmalloc", rss: 101_000))

    assert_equal "jemalloc", recommendation[:name]
    assert_empty recommendation[:rejected]
    assert_match(/\Ajemalloc used less memory than glibc: steady RSS -20\.0% \(-\d+\.\d … -\d+\.\d\), with no /,
                 recommendation[:reason])
  end

  # Issue 20: jemalloc −10.4% and glibc-arena2 −9.3% overlapped on a real app and were never set against each other.
  def test_between_winners_that_do_not_differ_the_smaller_change_to_deploy_is_recommended
    recommendation = recommend(row("jemalloc", rss: 89_600, deploy_effort: 3),
                               row("glibc-arena2", rss: 90_000, deploy_effort: 1))

    assert_equal "glibc-arena2", recommendation[:name]
    assert_includes recommendation[:reason],
                    "jemalloc's memory was not told apart from glibc-arena2's (jemalloc against glibc-arena2: " \
                    "steady RSS -0.4% "
    assert_includes recommendation[:reason],
                    "nor was any other figure; glibc-arena2 is recommended as the smaller change to deploy " \
                    "(an environment variable, where jemalloc needs a library to install and preload)"
    assert_match(/\Aglibc-arena2 used less memory than glibc: steady RSS -10\.0% /, recommendation[:reason])
  end

  # A demo's compare recommended glibc-arena2 "as the smaller change" over jemalloc-tuned, which served detectably
  # more req/s at memory not told apart, and listed glibc-arena2 as passed over in the same sentence.
  def test_a_simpler_configuration_that_another_beats_is_not_preferred_to_it
    recommendation = recommend(row("jemalloc-tuned", rss: 64_000, rps: 540.0, deploy_effort: 3),
                               row("glibc-arena2", rss: 63_800, rps: 500.0, deploy_effort: 1))

    assert_equal "jemalloc-tuned", recommendation[:name]
    refute_includes recommendation[:reason], "smaller change"
    assert_equal(["glibc-arena2"], recommendation[:rejected].map { |entry| entry[:name] })
    assert_includes recommendation[:reason], "glibc-arena2 used less still but was passed over: jemalloc-tuned was " \
                                             "as good on every resolved figure and better: req/s +8.0% (+"
  end

  # A demo: glibc-arena2 won, glibc-trim (beaten, its memory not told apart) came next in memory, and jemalloc-tuned
  # (faster, larger) was the other in the front; the winner is set against jemalloc-tuned, not against glibc-trim.
  def test_the_runner_up_is_the_next_that_nothing_beats
    recommendation = recommend(row("glibc-arena2", rss: 69_000, rps: 520.0, deploy_effort: 1),
                               row("glibc-trim", rss: 69_200, deploy_effort: 1),
                               row("jemalloc-tuned", rss: 76_000, rps: 560.0, deploy_effort: 3))

    assert_equal "glibc-arena2", recommendation[:name]
    assert_match(/glibc-arena2 also used less than jemalloc-tuned \(jemalloc-tuned against glibc-arena2: steady RSS/,
                 recommendation[:reason])
  end

  # Against the baseline jemalloc-tuned's req/s did not resolve (its spread is wide); against the winner it did.
  def test_what_the_runner_up_gained_against_the_winner_is_said
    glibc = row("glibc", rss: 100_000, rps_spread: [0.6, 1.0, 1.4])
    found = Comparison.call([glibc, row("glibc-arena2", rss: 69_000, deploy_effort: 1),
                             row("jemalloc-tuned", rss: 76_000, rps: 600.0, deploy_effort: 3)])
    recommendation = worded(Recommendation.call(found))

    assert_equal "glibc-arena2", recommendation[:name]
    assert_includes recommendation[:reason], "For that memory jemalloc-tuned gained req/s +20.0% (+"
    refute_includes recommendation[:reason], "It is recommended because"
  end

  # Every rival in the front is set against the winner, not only the next in memory: tcmalloc, in the front for its
  # p99, had appeared only with its gains against the baseline.
  def test_every_rival_in_the_front_is_set_against_the_winner
    recommendation = recommend(row("glibc-arena2", rss: 69_000, rps: 520.0, deploy_effort: 1),
                               row("jemalloc-tuned", rss: 76_000, rps: 560.0, deploy_effort: 3),
                               row("tcmalloc", rss: 82_000, p99: 30.0, deploy_effort: 3))

    assert_equal "glibc-arena2", recommendation[:name]
    assert_includes recommendation[:reason], "glibc-arena2 also used less than jemalloc-tuned (jemalloc-tuned against "
    assert_includes recommendation[:reason],
                    "glibc-arena2 also used less than tcmalloc (tcmalloc against glibc-arena2: steady RSS +18.8% "
  end

  # Memory not told apart is not "no difference" when each is better on another figure: the simpler one is still
  # preferred, and the sentence says that they differ elsewhere.
  def test_a_rival_that_shares_only_its_memory_is_said_to_differ_elsewhere
    recommendation = recommend(row("jemalloc", rss: 63_900, p99: 36.0, deploy_effort: 3),
                               row("glibc-arena2", rss: 64_000, rps: 540.0, p99: 39.6, deploy_effort: 1))

    assert_equal "glibc-arena2", recommendation[:name]
    assert_includes recommendation[:reason],
                    "jemalloc's memory was not told apart from glibc-arena2's (jemalloc against glibc-arena2: " \
                    "steady RSS -0.2% (-2.4 … +2.1)), though they differ elsewhere: jemalloc gained " \
                    "p99 latency -9.1% (-11.1 … -7.0) against glibc-arena2, and glibc-arena2 gained req/s +8.0% ("
    assert_includes recommendation[:reason], "glibc-arena2 is recommended as the smaller change to deploy"
    refute_includes recommendation[:reason], "nor was any other figure"
    refute_includes recommendation[:reason], "memory comes first"
  end

  # A demo: jemalloc +24% (−2.1 … +58) against jemalloc-tuned was "about as much", and jemalloc-tuned "recommended as
  # the one with no more to deploy", which is no reason: with as much to deploy, the lower median decided.
  def test_between_ties_with_as_much_to_deploy_the_lower_median_decides_and_says_so
    recommendation = recommend(row("jemalloc-tuned", rss: 64_000, deploy_effort: 3),
                               row("jemalloc", rss: 64_300, deploy_effort: 3))

    assert_equal "jemalloc-tuned", recommendation[:name]
    assert_includes recommendation[:reason], "nor was any other figure; jemalloc-tuned is recommended for its lower " \
                                             "median alone, with no more to deploy."
    refute_includes recommendation[:reason], "about as much"
  end

  def test_a_winner_that_uses_detectably_less_than_the_simpler_one_stays_and_says_by_how_much
    recommendation = recommend(row("jemalloc", rss: 80_000, deploy_effort: 3),
                               row("glibc-arena2", rss: 90_000, deploy_effort: 1))

    assert_equal "jemalloc", recommendation[:name]
    assert_match(/jemalloc also used less than glibc-arena2 \(glibc-arena2 against jemalloc: steady RSS \+12\.5% /,
                 recommendation[:reason])
  end

  # Issue 25: a winner on another Ruby says that deploying it is a Ruby change, and loses a tie to an allocator.
  def test_a_ruby_change_is_the_largest_deploy_and_the_reason_says_so
    linked = recommend(row("3.3+jemalloc", rss: 60_000, deploy_effort: Mallard::Allocators::DeployEffort::RUBY_CHANGE))
    tie = recommend(row("3.3+jemalloc", rss: 80_000, deploy_effort: Mallard::Allocators::DeployEffort::RUBY_CHANGE),
                    row("jemalloc", rss: 80_200, deploy_effort: 3))

    assert_equal "3.3+jemalloc", linked[:name]
    assert_match(/Deploying it means another Ruby to install: 3\.3\+jemalloc ran on another Ruby than the baseline\.\z/,
                 linked[:reason])
    assert_equal "jemalloc", tie[:name]
    assert_includes tie[:reason], "(a library to install and preload, where 3.3+jemalloc needs another Ruby to install)"
  end

  def test_a_lower_memory_configuration_that_costs_throughput_is_passed_over
    recommendation = recommend(row("mimalloc", rss: 70_000, rps: 400.0), row("jemalloc", rss: 80_000))

    assert_equal "jemalloc", recommendation[:name]
    assert_equal(["mimalloc"], recommendation[:rejected].map { |entry| entry[:name] })
    assert_match(%r{\Areq/s -20\.0% \(-\d+\.\d … -\d+\.\d\)\z}, recommendation[:rejected].first[:why])
    assert_includes recommendation[:reason], "; mimalloc used less still but was passed over: req/s -20.0% ("
  end

  def test_a_rise_in_p99_latency_rejects_too
    recommendation = recommend(row("tcmalloc", rss: 70_000, p99: 60.0), row("glibc-arena2", rss: 95_000))

    assert_equal "glibc-arena2", recommendation[:name]
    assert_match(/\Ap99 latency \+50\.0% \(\+\d+\.\d … \+\d+\.\d\)\z/, recommendation[:rejected].first[:why])
  end

  def test_a_job_workers_costs_are_named_in_jobs_and_queue_wait
    recommendation = recommend(row("mimalloc", rss: 70_000, rps: 400.0), row("jemalloc", rss: 80_000), jobs: true)

    assert_match(%r{\Ajobs/s -20\.0% \(}, recommendation[:rejected].first[:why])
    assert_includes recommendation[:reason],
                    "with no detectable loss of jobs/s, rise in p99 queue wait or in CPU per job"
  end

  def test_nothing_detectably_smaller_means_keep_the_baseline
    recommendation = recommend(row("jemalloc", rss: 100_500), row("mimalloc", rss: 110_000))

    assert_nil recommendation[:name]
    assert_equal NO_DIFFERENCE, recommendation[:reason]
    assert_empty recommendation[:rejected]
  end

  def test_when_every_saving_costs_something_the_reason_says_so
    recommendation = recommend(row("jemalloc", rss: 80_000, rps: 300.0, p99: 80.0))

    assert_nil recommendation[:name]
    assert_match(/\AEvery configuration that used detectably less memory than glibc cost too much elsewhere /,
                 recommendation[:reason])
    assert_includes recommendation[:reason], "(jemalloc: req/s -40.0% ("
    assert_includes recommendation[:reason], " and p99 latency +100.0% ("
    assert recommendation[:reason].end_with?("; keep glibc.")
  end

  def test_failed_unverified_or_unavailable_configurations_never_win
    recommendation = recommend(row("mimalloc", rss: 50_000, failed: "subject died"),
                               row("tcmalloc", rss: 50_000, verified: false),
                               row("jemalloc-tuned", rss: 50_000, available: false),
                               row("jemalloc", rss: 90_000))

    assert_equal "jemalloc", recommendation[:name]
    assert_empty recommendation[:rejected]
    refute_match(/mimalloc|tcmalloc|tuned/, recommendation[:reason])
  end

  def test_no_winner_when_only_failed_configurations_were_smaller
    assert_equal NO_DIFFERENCE, recommend(row("jemalloc", rss: 50_000, failed: "timed out"))[:reason]
  end

  def test_a_failed_baseline_compares_nothing
    found = Comparison.call([row("glibc", rss: 100_000, failed: "subject died"), row("jemalloc", rss: 50_000)])
    recommendation = worded(Recommendation.call(found))

    assert_nil recommendation[:name]
    assert_match(/\Aglibc, the baseline, has no completed runs/, recommendation[:reason])
  end

  def test_pss_is_named_when_it_was_the_metric
    found = Comparison.call([row("glibc", rss: 100_000, processes: 4), row("jemalloc", rss: 95_000)])

    assert_includes worded(Recommendation.call(found), metric: found.metric)[:reason],
                    "steady PSS (summed over processes) -5.0% (-"
  end

  def test_more_cpu_per_request_is_a_cost
    recommendation = recommend(row("glibc-trim", rss: 70_000, cpu: 2.4), row("jemalloc", rss: 85_000))

    assert_equal "jemalloc", recommendation[:name]
    assert_match(/\ACPU per request \+20\.0% \(\+\d+\.\d … \+\d+\.\d\)\z/, recommendation[:rejected].first[:why])
  end

  # The field report: jemalloc 7.7% smaller and 7.1% faster with a lower p99, arena2 12% smaller; the
  # recommendation must say what jemalloc gains, not only pick the smallest.
  def test_gains_elsewhere_are_shown_as_trade_offs_and_weighed_in_the_reason
    recommendation = recommend(row("glibc-arena2", rss: 88_000), row("jemalloc", rss: 92_300, rps: 535.0, p99: 23.0))

    assert_equal "glibc-arena2", recommendation[:name]
    assert_equal(%w[glibc-arena2 jemalloc], recommendation[:trade_offs].map { |entry| entry[:name] })
    assert_match(%r{\Agains steady RSS -7\.7% \(.*\), req/s \+7\.0% \(.*\), p99 latency -\d+\.\d% \(.*\)\z},
                 recommendation[:trade_offs].last[:text])
    assert_includes recommendation[:reason], "It is recommended because memory comes first"
    assert_includes recommendation[:reason], "jemalloc gains steady RSS -7.7% "
  end

  def test_one_that_only_saves_memory_needs_no_trade_offs
    assert_empty recommend(row("jemalloc", rss: 80_000))[:trade_offs]
  end

  def test_a_configuration_beaten_on_every_figure_is_passed_over
    # glibc-arena2 is smallest, but jemalloc is as small (within the noise) and faster.
    recommendation = recommend(row("glibc-arena2", rss: 80_000), row("jemalloc", rss: 80_400, rps: 600.0))

    assert_equal "jemalloc", recommendation[:name]
    assert_match(%r{\Ajemalloc was as good on every resolved figure and better: req/s \+20\.0% \(.*\) against it\z},
                 recommendation[:rejected].first[:why])
  end
end

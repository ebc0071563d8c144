# frozen_string_literal: true

require "test_helper"
require "mallard"

# The decision alone, driven by a comparison value: who wins, who is rejected with the figures that rejected it, the
# rivals set against the winner, the trade-offs and the deploy effort that broke a tie. No sentence is made here
# (RecommendationSentencesTest words the same cases).
class RecommendationTest < Minitest::Test
  include ComparisonRows

  Comparison = Mallard::Analysis::Comparison
  Recommendation = Mallard::Analysis::Recommendation

  def recommend(*rows) = Recommendation.call(comparison(*rows))

  # Every string member of a decision built now is a name or a word of a closed set, never a sentence.
  def assert_no_sentences(value)
    strings = Mallard::Value.plain(value).to_s.scan(/"((?:[^"\\]|\\.)*)"/).flatten
    assert_empty strings.grep(/\s/), "a recommendation holds words, not sentences"
  end

  def figures(moves) = moves.map(&:figure)

  def only(list)
    assert_equal 1, list.size, list.inspect
    list.first
  end

  def test_the_configuration_using_least_memory_wins
    decision = recommend(row("jemalloc", rss: 80_000), row("glibc-arena2", rss: 90_000), row("tcmalloc", rss: 101_000))

    assert_equal "jemalloc", decision.name
    assert_equal "glibc", decision.baseline
    assert_equal "memory", decision.saving.figure
    assert_in_delta(-20.0, decision.saving.pct, 0.1)
    assert_operator decision.saving.ci.last, :<, 0
    assert_equal %w[rate latency cpu], decision.unharmed
    assert_empty decision.rejected
    assert_equal([%w[glibc-arena2 used_more]], decision.rivals.map { |rival| [rival.name, rival.relation] })
    assert_no_sentences decision
  end

  # Issue 20: jemalloc −10.4% and glibc-arena2 −9.3% overlapped on a real app and were never set against each other.
  def test_between_winners_that_do_not_differ_the_smaller_change_to_deploy_is_recommended
    decision = recommend(row("jemalloc", rss: 89_600, deploy_effort: 3),
                         row("glibc-arena2", rss: 90_000, deploy_effort: 1))

    assert_equal "glibc-arena2", decision.name
    assert_equal 1, decision.deploy_effort
    tie = decision.rivals.first
    assert_equal ["jemalloc", "tied", 3, []], [tie.name, tie.relation, tie.deploy_effort, tie.differences]
    assert_operator tie.memory.ci.first, :<, 0
    assert_operator tie.memory.ci.last, :>, 0
  end

  # A demo recommended glibc-arena2 "as the smaller change" over jemalloc-tuned, which served detectably more req/s
  # at memory not told apart, and listed glibc-arena2 as passed over at once.
  def test_a_simpler_configuration_that_another_beats_is_not_preferred_to_it
    decision = recommend(row("jemalloc-tuned", rss: 64_000, rps: 540.0, deploy_effort: 3),
                         row("glibc-arena2", rss: 63_800, rps: 500.0, deploy_effort: 1))

    assert_equal "jemalloc-tuned", decision.name
    rejection = only(decision.rejected)
    assert_equal ["glibc-arena2", true, "jemalloc-tuned", []], [rejection.name, rejection.passed_over, rejection.by,
                                                                rejection.costs]
    assert_equal %w[rate], figures(rejection.on)
    assert_in_delta 8.0, rejection.on.first.pct, 0.1
  end

  def test_the_runner_up_is_the_next_that_nothing_beats
    decision = recommend(row("glibc-arena2", rss: 69_000, rps: 520.0, deploy_effort: 1),
                         row("glibc-trim", rss: 69_200, deploy_effort: 1),
                         row("jemalloc-tuned", rss: 76_000, rps: 560.0, deploy_effort: 3))

    assert_equal "glibc-arena2", decision.name
    assert_equal(%w[jemalloc-tuned], decision.rivals.map(&:name))
    assert_equal "used_more", decision.rivals.first.relation
    assert_in_delta 10.1, decision.rivals.first.memory.pct, 0.1
    assert_equal %w[jemalloc-tuned], decision.alternatives
  end

  # Against the baseline jemalloc-tuned's req/s did not resolve (its spread is wide); against the winner it did.
  def test_what_the_runner_up_gained_against_the_winner_is_kept
    glibc = row("glibc", rss: 100_000, rps_spread: [0.6, 1.0, 1.4])
    decision = Recommendation.call(Comparison.call([glibc, row("glibc-arena2", rss: 69_000, deploy_effort: 1),
                                                    row("jemalloc-tuned", rss: 76_000, rps: 600.0, deploy_effort: 3)]))

    assert_equal "glibc-arena2", decision.name
    assert_equal %w[rate], figures(only(decision.rivals).gains)
    assert_in_delta 20.0, only(decision.rivals).gains.first.pct, 0.1
    assert_empty decision.alternatives
  end

  def test_every_rival_in_the_front_is_set_against_the_winner
    decision = recommend(row("glibc-arena2", rss: 69_000, rps: 520.0, deploy_effort: 1),
                         row("jemalloc-tuned", rss: 76_000, rps: 560.0, deploy_effort: 3),
                         row("tcmalloc", rss: 82_000, p99: 30.0, deploy_effort: 3))

    assert_equal(%w[jemalloc-tuned tcmalloc], decision.rivals.map(&:name))
    assert(decision.rivals.all? { |rival| rival.relation == "used_more" })
  end

  def test_a_rival_that_shares_only_its_memory_differs_elsewhere
    decision = recommend(row("jemalloc", rss: 63_900, p99: 36.0, deploy_effort: 3),
                         row("glibc-arena2", rss: 64_000, rps: 540.0, p99: 39.6, deploy_effort: 1))

    assert_equal "glibc-arena2", decision.name
    tie = only(decision.rivals)
    assert_equal "tied", tie.relation
    assert_equal([["jemalloc", "glibc-arena2", %w[latency]], ["glibc-arena2", "jemalloc", %w[rate]]],
                 tie.differences.map { |found| [found.better, found.worse, figures(found.on)] })
    assert_empty decision.alternatives, "a tied rival is weighed as a tie, not as one memory came before"
  end

  def test_between_ties_with_as_much_to_deploy_the_lower_median_decides
    decision = recommend(row("jemalloc-tuned", rss: 64_000, deploy_effort: 3),
                         row("jemalloc", rss: 64_300, deploy_effort: 3))

    assert_equal "jemalloc-tuned", decision.name
    assert_equal [3, 3], [decision.deploy_effort, only(decision.rivals).deploy_effort]
  end

  # Issue 25: a winner on another Ruby keeps its effort, and loses a tie to an allocator.
  def test_a_ruby_change_is_the_largest_deploy
    linked = recommend(row("3.3+jemalloc", rss: 60_000, deploy_effort: Mallard::Allocators::DeployEffort::RUBY_CHANGE))
    tie = recommend(row("3.3+jemalloc", rss: 80_000, deploy_effort: Mallard::Allocators::DeployEffort::RUBY_CHANGE),
                    row("jemalloc", rss: 80_200, deploy_effort: 3))

    assert_equal Mallard::Allocators::DeployEffort::RUBY_CHANGE, linked.deploy_effort
    assert_equal ["jemalloc", 3], [tie.name, tie.deploy_effort]
    assert_equal ["3.3+jemalloc", Mallard::Allocators::DeployEffort::RUBY_CHANGE],
                 [only(tie.rivals).name, only(tie.rivals).deploy_effort]
  end

  def test_a_lower_memory_configuration_that_costs_throughput_is_passed_over
    decision = recommend(row("mimalloc", rss: 70_000, rps: 400.0), row("jemalloc", rss: 80_000))

    assert_equal "jemalloc", decision.name
    rejection = only(decision.rejected)
    assert_equal ["mimalloc", true, %w[rate], nil], [rejection.name, rejection.passed_over, figures(rejection.costs),
                                                     rejection.by]
    assert_in_delta(-20.0, rejection.costs.first.pct, 0.1)
  end

  def test_a_rise_in_p99_latency_or_cpu_rejects_too
    latency = recommend(row("tcmalloc", rss: 70_000, p99: 60.0), row("glibc-arena2", rss: 95_000))
    cpu = recommend(row("glibc-trim", rss: 70_000, cpu: 2.4), row("jemalloc", rss: 85_000))

    assert_equal %w[latency], figures(only(latency.rejected).costs)
    assert_equal %w[cpu], figures(only(cpu.rejected).costs)
  end

  def test_nothing_detectably_smaller_means_keep_the_baseline
    decision = recommend(row("jemalloc", rss: 100_500), row("mimalloc", rss: 110_000))

    assert_equal [nil, "no_saving", []], [decision.name, decision.ending, decision.rejected]
  end

  def test_when_every_saving_costs_something_none_wins
    decision = recommend(row("jemalloc", rss: 80_000, rps: 300.0, p99: 80.0))

    assert_equal [nil, "costs"], [decision.name, decision.ending]
    assert_equal %w[rate latency], figures(only(decision.rejected).costs)
  end

  def test_failed_unverified_or_unavailable_configurations_never_win
    decision = recommend(row("mimalloc", rss: 50_000, failed: "subject died"),
                         row("tcmalloc", rss: 50_000, verified: false),
                         row("jemalloc-tuned", rss: 50_000, available: false), row("jemalloc", rss: 90_000))

    assert_equal "jemalloc", decision.name
    assert_empty decision.rejected
    assert_empty decision.rivals
  end

  def test_a_failed_baseline_compares_nothing
    decision = Recommendation.call(Comparison.call([row("glibc", rss: 100_000, failed: "subject died"),
                                                    row("jemalloc", rss: 50_000)]))

    assert_equal [nil, "no_baseline"], [decision.name, decision.ending]
  end

  def test_without_load_nothing_unharmed_is_claimed
    quiet = [row("glibc", rss: 100_000, rps: nil, p99: nil, cpu: nil),
             row("jemalloc", rss: 80_000, rps: nil, p99: nil, cpu: nil)]

    assert_empty Recommendation.call(Comparison.call(quiet)).unharmed
  end

  # The field report: jemalloc 7.7% smaller and 7.1% faster with a lower p99, arena2 12% smaller.
  def test_gains_elsewhere_are_trade_offs_that_memory_came_before
    decision = recommend(row("glibc-arena2", rss: 88_000), row("jemalloc", rss: 92_300, rps: 535.0, p99: 23.0))

    assert_equal "glibc-arena2", decision.name
    assert_equal(%w[glibc-arena2 jemalloc], decision.trade_offs.map(&:name))
    assert_equal %w[memory rate latency], figures(decision.trade_offs.last.gained)
    assert_equal %w[jemalloc], decision.alternatives
  end

  def test_one_that_only_saves_memory_needs_no_trade_offs
    assert_empty recommend(row("jemalloc", rss: 80_000)).trade_offs
  end

  def test_a_configuration_beaten_on_every_figure_is_passed_over
    decision = recommend(row("glibc-arena2", rss: 80_000), row("jemalloc", rss: 80_400, rps: 600.0))

    assert_equal "jemalloc", decision.name
    assert_equal ["glibc-arena2", "jemalloc", %w[rate]],
                 [only(decision.rejected).name, only(decision.rejected).by, figures(only(decision.rejected).on)]
  end

  # Summary::Recommendation is stored in summary.json: the decision reloads as the same value.
  def test_the_decision_reloads_from_its_json
    decision = recommend(row("jemalloc", rss: 63_900, p99: 36.0, deploy_effort: 3),
                         row("glibc-arena2", rss: 64_000, rps: 540.0, p99: 39.6, deploy_effort: 1))

    assert_equal decision, Mallard::Summary::Recommendation.from_h(JSON.parse(JSON.generate(decision.to_h)))
  end
end

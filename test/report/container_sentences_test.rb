# frozen_string_literal: true

require "test_helper"
require_relative "stored_summaries"
require_relative "container_summaries"

# Memory as the container counts it, worded once: whose cgroup it is, its charge beside the tree's PSS, and
# --memory-limit's headroom or its crossing as the reason the run failed.
class ContainerSentencesTest < Minitest::Test
  include StoredSummaries
  include ContainerSummaries

  def test_a_shared_cgroup_says_whose_it_is_and_that_its_figures_count_the_others
    words = sentences

    assert_includes words.charge, "cgroup v1 memory /jobs/42: 400.0 MiB steady, 420.0 MiB at its peak (anon 380.0 MiB"
    assert_includes words.charge, "the tree's PSS then 200.0 MiB"
    assert_includes words.owner, "not the app's own: it holds 9 processes, 3 of them the subject's"
    assert_includes words.owner, "the container's view, not the app's alone"
  end

  def test_a_cgroup_of_the_tree_alone_says_so
    words = sentences(container: CONTAINER.merge(processes: 3))

    assert_equal "the cgroup holds the subject's 3 processes and nothing else", words.owner
  end

  def test_a_limit_above_the_peak_says_its_headroom_and_that_it_was_watched
    assert_equal "--memory-limit 600.0 MiB, watched against the tree's summed PSS (not enforced): its peak 200.0 MiB " \
                 "left 400.0 MiB of headroom", sentences.limit
    assert_nil sentences.crossed
  end

  def test_a_crossed_limit_says_when_by_how_much_and_that_it_was_not_enforced
    said = sentences(limit: CROSSED).crossed

    assert_includes said, "crossed --memory-limit 600.0 MiB at 12.3 s (4.1 s into the load)"
    assert_includes said, "its summed PSS was 130.0 MiB, 27.0 MiB over (summed RSS 180.0 MiB)"
    assert_includes said, "watched, not enforced"
  end

  # The soak's presenter gives the crossing as the reason the run failed, and does not say it twice.
  def test_a_run_the_limit_ended_gives_the_crossing_as_its_reason
    summary = soak_summary("soak-workers").with(
      status: "failed", cause: "memory_limit", reason: "stored", verdict: nil,
      container: Mallard::Summary::Container.new(**CONTAINER),
      memory_limit: Mallard::Summary::MemoryLimit.new(**CROSSED)
    )
    words = Mallard::Report::SoakSentences.new(summary)

    assert_equal sentences(limit: CROSSED).crossed, words.reason
    assert_equal 2, words.container.size
  end

  def test_nothing_to_say_without_a_cgroup_or_a_limit
    words = Mallard::Report::ContainerSentences.new(nil, nil)

    assert_nil words.charge
    assert_nil words.owner
    assert_nil words.limit
  end

  private

  def sentences(container: CONTAINER, limit: LIMIT)
    Mallard::Report::ContainerSentences.new(Mallard::Summary::Container.new(**container),
                                            Mallard::Summary::MemoryLimit.new(**limit))
  end
end

# frozen_string_literal: true

require "test_helper"

class ProcessMediansTest < Minitest::Test
  Series = Mallard::Run::FleetSeries

  def test_weighted_median
    stats = Mallard::Analysis::Statistics

    assert_in_delta 2.5, stats.weighted_median([1, 2, 3, 4], [1, 1, 1, 1])
    assert_in_delta 4.0, stats.weighted_median([1, 2, 3, 4], [1, 1, 1, 10])
    assert_in_delta 1.0, stats.weighted_median([4, 1], [1, 3])
    assert_nil stats.weighted_median([], [])
  end

  # A gap (a missed scrape, a restart) weighs one step, not the time the series was away.
  def test_each_point_stands_for_the_time_to_the_next_at_most_a_step
    series = Series.new(labels: { "pid" => "1" }, points: [[0.0, 10.0], [1.0, 10.0], [100.0, 50.0], [101.0, 50.0],
                                                           [102.0, 50.0]])
    process = Mallard::Analysis::ProcessMedians.call([series], step: 1.0, set: "A").first

    assert_in_delta 50.0, process.median
    assert_equal 5, process.points
    refute process.excluded
  end

  def test_a_process_seen_for_too_few_points_is_shown_not_counted
    series = Series.new(labels: { "pid" => "2" }, points: [[0.0, 10.0], [1.0, 12.0]])

    assert Mallard::Analysis::ProcessMedians.call([series], step: 1.0, set: "B").first.excluded
  end
end

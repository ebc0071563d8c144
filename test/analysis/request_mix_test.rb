# frozen_string_literal: true

require "test_helper"

# The request mix: production's from the exporter's rates, a lab's from its paths, what a load can take of
# production's, and the rotation of paths that sends it in its proportions.
class RequestMixTest < Minitest::Test
  Mix = Mallard::Analysis::RequestMix

  def test_production_shares_are_each_paths_mean_rate_over_the_window
    mix = Mix.of_series([series("GET", "/", 30, 30, 30), series("GET", "/rows", 10, 10), series("GET", "/idle", 0)])

    assert_equal [["GET", "/", 0.75], ["GET", "/rows", 0.25]], mix.map(&:to_a)
    assert_empty Mix.of_series([])
  end

  def test_a_labs_shares_count_its_paths_repeats
    assert_equal [["/", 0.75], ["/rows", 0.25]], pairs(Mix.of_paths(%w[/ /rows / /]))
  end

  def test_what_a_load_cannot_send_is_left_with_its_reason
    taken = Mix.take([share("GET", "/", 0.6), share("POST", "/", 0.1), share("GET", "/users/:id", 0.1),
                      share("GET", "other", 0.1), share("GET", "/tiny", 0.005), share("GET", "/rows", 0.095)])

    assert_equal [["/", 0.8633], ["/rows", 0.1367]], pairs(taken.mix)
    assert_equal({ "method" => 0.1, "id" => 0.1, "other" => 0.1, "small" => 0.005 },
                 taken.left.to_h { |one| [one.reason, one.share] })
  end

  # The rotation sends each path in its share, to the 1%, in as few slots as that takes, interleaved.
  def test_the_rotation_keeps_the_proportions_in_few_slots_interleaved
    assert_equal %w[/ / /rows /], Mix.rotation([share("GET", "/", 0.7512), share("GET", "/rows", 0.2488)])

    rotation = Mix.rotation([share("GET", "/a", 0.5), share("GET", "/b", 0.3), share("GET", "/c", 0.2)])
    assert_equal({ "/a" => 5, "/b" => 3, "/c" => 2 }, rotation.tally)
    refute_includes rotation.each_cons(2).to_a, %w[/b /b], "no path twice in a row but the largest"

    small = Mix.rotation([share("GET", "/a", 0.982), share("GET", "/b", 0.018)])
    assert_equal [49, 1], small.tally.values_at("/a", "/b"), "98 and 2 slots of 100, the largest remainder's"
  end

  private

  def pairs(mix) = mix.map { |one| [one.path, one.share] }

  def share(method, path, value) = Mallard::Summary::RequestShare.new(method: method, path: path, share: value)

  def series(method, path, *rates)
    Mallard::Run::FleetSeries.new(labels: { "method" => method, "path" => path },
                                  points: rates.each_with_index.map { |rate, i| [1000.0 + i, rate.to_f] })
  end
end

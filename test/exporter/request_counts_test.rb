# frozen_string_literal: true

require "test_helper"
require "mallard/exporter/request_counts"
require "mallard/exporter/request_totals"
require "mallard/exporter/request_counter"

# The exporter's request counts: paths cut to what names a route, a bounded number of them, and the tree's sum that
# only grows as workers come and go.
class RequestCountsTest < Minitest::Test
  Counts = Mallard::Exporter::RequestCounts

  def setup
    Counts.after_fork # a fresh count, as a forked worker starts
  end

  def teardown
    Counts.after_fork
  end

  def test_ids_digests_and_uuids_are_one_segment_words_stay
    { "/users/123/posts" => "/users/:id/posts", "/" => "/", "/a/b/" => "/a/b/",
      "/blobs/0123456789abcdef01" => "/blobs/:id", "/feed/deadbeefcafe" => "/feed/deadbeefcafe",
      "/o/123e4567-e89b-12d3-a456-426614174000/x" => "/o/:id/x", "/v2/api" => "/v2/api",
      "/caf\u00e9" => "/caf%C3%A9", "/#{'a' * 300}" => "other", "*" => "other", nil => "other" }.each do |path, named|
      assert_equal named, Counts.normalise(path), path.inspect
    end
  end

  def test_counts_by_method_and_path_and_past_the_limit_as_other
    app = Mallard::Exporter::RequestCounter.new(->(_env) { [200, {}, ["ok"]] })
    assert_equal [200, {}, ["ok"]], app.call("REQUEST_METHOD" => "GET", "SCRIPT_NAME" => "/app", "PATH_INFO" => "/7")
    Counts.count("BREW", "/pot")
    (Counts::MAX_PATHS + 5).times { |i| Counts.count("GET", "/page#{i}") }

    readings = Counts.readings
    assert_equal Counts::MAX_PATHS + 1, readings.size, "the limit, and other"
    assert_equal [1, 1, 7], readings.values_at("request.GET:/app/:id", "request.OTHER:/pot", "request.GET:other")
    assert_equal %w[GET /app/:id], Counts.split("request.GET:/app/:id")
  end

  # A worker replaced keeps its last counts in the sum; a process seen again is not counted twice.
  def test_the_trees_sum_only_grows_as_workers_go
    totals = Mallard::Exporter::RequestTotals.new
    first = totals.sum({ 1 => { "request.GET:/" => 2, "gc.count" => 5 }, 2 => { "request.GET:/" => 3 } }, [1, 2])
    later = totals.sum({ 1 => { "request.GET:/" => 4 }, 3 => { "request.GET:/" => 1, "request.POST:/a" => 1 } },
                       [1, 3])

    assert_equal({ "request.GET:/" => 5 }, first)
    assert_equal({ "request.GET:/" => 8, "request.POST:/a" => 1 }, later)
  end

  def test_a_live_process_unread_at_one_scrape_is_counted_once
    totals = Mallard::Exporter::RequestTotals.new
    totals.sum({ 1 => { "started" => 10, "request.GET:/" => 2 }, 2 => { "started" => 11, "request.GET:/" => 3 } },
               [1, 2])
    unread = totals.sum({ 1 => { "started" => 10, "request.GET:/" => 4 } }, [1, 2])
    read_again = totals.sum({ 1 => { "started" => 10, "request.GET:/" => 4 }, 2 => { "started" => 11,
                                                                                     "request.GET:/" => 6 } }, [1, 2])

    assert_equal({ "request.GET:/" => 7 }, unread, "worker 2's last counts stand while it is unread")
    assert_equal({ "request.GET:/" => 10 }, read_again)
  end

  def test_a_pid_taken_by_a_younger_process_retires_the_older_ones_counts
    totals = Mallard::Exporter::RequestTotals.new
    totals.sum({ 2 => { "started" => 11, "request.GET:/" => 3 } }, [2])
    replaced = totals.sum({ 2 => { "started" => 99, "request.GET:/" => 1 } }, [2])

    assert_equal({ "request.GET:/" => 4 }, replaced)
  end
end

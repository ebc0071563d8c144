# frozen_string_literal: true

require "test_helper"
require "json"
require_relative "stored_summaries"
require_relative "sharing_summaries"

# Copy-on-write decay worded once (Report::SharingSentences), placed by the terminal, drawn in the HTML page, and
# carried as data by the JSON; a tree without workers says nothing of it.
class SharingSentencesTest < Minitest::Test
  include StoredSummaries
  include SharingSummaries

  def test_each_worker_reads_its_sharing_kept_and_its_knee
    lines = Mallard::Report::SharingSentences.new(sharing_decay).workers

    assert_equal 2, lines.size
    assert_match(/worker pid 4101: shared 66.4 MiB at its first tick, 23.4 MiB after 400 requests \(its own count\): 35% kept; its fall bends after 100 requests, with 43.0 MiB still shared/, lines[0]) # rubocop:disable Layout/LineLength
    assert_match(/\(estimated: the load's rate shared evenly among the workers\): 99% kept; sharing did not decay/,
                 lines[1])
  end

  def test_a_job_workers_sharing_is_counted_in_jobs
    line = Mallard::Report::SharingSentences.new(sharing_decay, unit: "jobs").workers.first

    assert_match(/after 400 jobs \(its own count\).*bends after 100 jobs,/, line)
  end

  def test_no_workers_no_sentences_and_no_chart
    assert_empty Mallard::Report::SharingSentences.new(nil).all
    assert_nil Mallard::Report::Html::SharingChart.new(nil).to_html
  end

  def test_the_json_carries_the_points_and_reloads_as_the_same_value
    summary = soak_summary("soak-workers").with(sharing_decay: sharing_decay)
    json = JSON.parse(printed { |io| Mallard::Report::Json.new(summary).render(io) })
    worker = json.dig("sharing_decay", "workers", 0)

    assert_equal [4101, 100, "knee"], worker.values_at("pid", "knee_requests", "finding")
    assert_equal({ "requests" => 100, "shared_kb" => 44_000, "private_kb" => 27_000, "t" => 4.5 }, worker["points"][1])
    assert_equal summary, Mallard::Summary::Soak.from_h(json)
  end

  def test_the_html_page_draws_each_workers_shared_and_private_lines
    summary = soak_summary("soak-workers").with(sharing_decay: sharing_decay)
    page = printed { |io| Mallard::Report::Html.new(summary, meta: stored_meta("soak-workers")).render(io) }

    assert_includes page, "Shared and private memory per worker, against its requests"
    %w[shared private].product([4101, 4102]).each { |what, pid| assert_includes page, "#{what}, pid #{pid}" }
  end

  private

  def printed
    io = StringIO.new
    yield io
    io.string
  end
end

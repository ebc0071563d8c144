# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require "mallard/agent/recorder"
require "mallard/agent/job_middleware"

# The agent's Sidekiq middleware, called as Sidekiq calls it, recording into a real recorder and file.
class JobMiddlewareTest < Minitest::Test
  def setup
    @dir = Dir.mktmpdir("mallard-jobs")
    @recorder = Mallard::Agent::Recorder.new(path: File.join(@dir, "agent.jsonl"), jobs: true)
    @middleware = Mallard::Agent::JobMiddleware.new(@recorder)
  end

  def teardown
    FileUtils.remove_entry(@dir)
  end

  def test_a_job_is_timed_and_its_wait_in_the_queue_measured
    @middleware.call(nil, { "enqueued_at" => Time.now.to_f - 1.5 }, "default") { sleep 0.02 }
    record = line

    assert_equal 1, record["requests"]
    assert_equal 0, record["busy"]
    assert_equal 0, record["jobs_failed"]
    assert_operator record["job_ms"].first, :>=, 20
    assert_in_delta 1500, record["queue_ms"].first, 100
    assert_equal [0], record["failed"]
  end

  def test_sidekiq_8_enqueued_at_in_milliseconds
    @middleware.call(nil, { "enqueued_at" => ((Time.now.to_f - 2) * 1000).round }, "default") { nil }

    assert_in_delta 2000, line["queue_ms"].first, 100
  end

  def test_a_job_that_raises_is_counted_failed_and_the_error_goes_on
    assert_raises(ArgumentError) { @middleware.call(nil, {}, "default") { raise ArgumentError, "boom" } }
    record = line

    assert_equal 1, record["requests"]
    assert_equal 1, record["jobs_failed"]
    assert_equal [1], record["failed"]
    assert_equal [nil], record["queue_ms"], "a job without enqueued_at has no measurable wait"
  end

  # Per class, cumulative for the process: an Active Job wrapped by Sidekiq counts as its own class; each row names
  # its class by its index in the tally.
  def test_each_job_class_is_tallied_and_each_row_names_its_class
    @middleware.call(nil, { "class" => "LeakyJob" }, "default") { nil }
    @middleware.call(nil, { "class" => "Sidekiq::ActiveJob::Wrapper", "wrapped" => "ReportJob" }, "default") { nil }
    first = line
    assert_raises(RuntimeError) { @middleware.call(nil, { "class" => "ReportJob" }, "default") { raise "boom" } }
    second = line

    assert_equal %w[LeakyJob ReportJob], first["job_classes"].map(&:first)
    assert_equal([[1, 0], [1, 0]], first["job_classes"].map { |_, jobs, failed| [jobs, failed] })
    assert_equal [0, 1], first["job_class"]
    assert_equal([[1, 0], [2, 1]], second["job_classes"].map { |_, jobs, failed| [jobs, failed] })
    assert_equal [1], second["job_class"]
  end

  def test_a_running_job_counts_as_busy
    started = Queue.new
    finish = Queue.new
    worker = Thread.new { @middleware.call(nil, {}, "default") { (started << true) && finish.pop } }
    started.pop

    assert_equal 1, line["busy"]
    finish << true
    worker.join
    assert_equal 0, line["busy"]
  end

  private

  def line = JSON.parse(@recorder.take)
end

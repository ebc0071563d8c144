# frozen_string_literal: true

require "test_helper"
require "json"
require "time"
require "tmpdir"
require "mallard/agent/recorder"
require "mallard/agent/active_job_hook"

# The agent's Active Job hook, called as its subscriptions call it (perform_start as a job starts, perform with the
# job's payload as it ends), recording into a real recorder and file. Active Support itself is not in mallard's
# bundle: the subscriptions are exercised on a real Solid Queue worker (test/ruby33/solid_queue_test.rb).
class ActiveJobHookTest < Minitest::Test
  Job = Struct.new(:enqueued_at)

  def setup
    @dir = Dir.mktmpdir("mallard-active-job")
    @recorder = Mallard::Agent::Recorder.new(path: File.join(@dir, "agent.jsonl"), jobs: true)
  end

  def teardown
    FileUtils.remove_entry(@dir)
  end

  def test_each_job_is_timed_with_its_wait_from_enqueued_at_and_a_raise_is_a_failure
    perform(Job.new(Time.now - 1.5)) { sleep 0.02 }
    perform(Job.new((Time.now - 0.5).iso8601(6)), raised: ArgumentError.new("boom"))
    record = JSON.parse(@recorder.take)

    assert_equal [2, 0, 1], record.values_at("requests", "busy", "jobs_failed")
    assert_operator record["job_ms"].first, :>=, 20
    assert_in_delta 1500, record["queue_ms"].first, 100
    assert_in_delta 500, record["queue_ms"].last, 100, "an older Active Job's enqueued_at, ISO 8601 text"
    assert_equal [0, 1], record["failed"]
  end

  def test_each_job_is_tallied_by_its_class
    perform(Job.new(Time.now)) { nil }
    perform(Job.new(Time.now), raised: ArgumentError.new("boom"))
    record = JSON.parse(@recorder.take)

    assert_equal([["ActiveJobHookTest::Job", 2, 1]], record["job_classes"].map { |tally| tally.first(3) })
    assert_equal [0, 0], record["job_class"]
  end

  # Solid Queue's async mode loads Rails after the agent and never forks: a thread looks until it can subscribe.
  def test_without_active_support_a_thread_looks_until_it_is_loaded
    Mallard::Agent::ActiveJobHook.watch(@recorder)
    looking = Thread.list.select { |thread| thread.name == "mallard-active-job" }

    refute_empty looking
    assert looking.all?(&:alive?)
    assert(looking.all? { |thread| thread.thread_variable_get(:fork_safe) })
  ensure
    looking&.each(&:kill)
  end

  private

  def perform(job, raised: nil)
    Mallard::Agent::ActiveJobHook.started(@recorder)
    yield if block_given?
    Mallard::Agent::ActiveJobHook.performed(@recorder, { job: job, exception_object: raised }.compact)
  end
end

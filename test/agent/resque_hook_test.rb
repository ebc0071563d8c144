# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require "mallard/agent/recorder"
require "mallard/agent/resque_hook"

# The agent's Resque hook, called as its wraps of Resque::Worker#perform_with_fork and Resque::Job#perform call it, with
# a real fork per job as Resque's, recording into a real recorder. Resque itself is not in mallard's bundle: the wraps
# are exercised on a real worker (test/ruby33/resque_test.rb).
class ResqueHookTest < Minitest::Test
  Job = Struct.new(:payload, :queue)
  HOOK = Mallard::Agent::ResqueHook

  def setup
    @dir = Dir.mktmpdir("mallard-resque")
    @recorder = Mallard::Agent::Recorder.new(path: File.join(@dir, "agent.jsonl"), jobs: true)
    HOOK.watch(@recorder)
  end

  def teardown
    FileUtils.remove_entry(@dir)
  end

  # The child only says whether its job raised; the parent records it, from the fork to the child's exit.
  def test_a_job_run_in_a_child_is_recorded_by_its_parent
    HOOK.forked_job(job(Time.now.to_f - 1.5)) { run_in_child(-> { sleep 0.02 }) }
    HOOK.forked_job(job(nil)) { run_in_child(-> { raise ArgumentError, "boom" }) }
    record = JSON.parse(@recorder.take)

    assert_equal [2, 0, 1], record.values_at("requests", "busy", "jobs_failed")
    assert_operator record["job_ms"].first, :>=, 20
    queued, unknown = record["queue_ms"]
    assert_in_delta 1500, queued, 100, "from the payload's enqueued_at"
    assert_nil unknown, "Resque's own payload has no enqueued_at: its wait is unknown"
    assert_equal [0, 1], record["failed"]
    refute HOOK.parent_records?, "the parent, between jobs"
  end

  # A child that never says (killed mid-job, as Resque's TERM does) ran a failed job.
  def test_a_child_that_says_nothing_failed
    HOOK.forked_job(job(nil)) { Process.wait(fork { exit!(0) }) }

    assert_equal [1, 1], JSON.parse(@recorder.take).values_at("requests", "jobs_failed")
  end

  # FORK_PER_JOB=false: the parent runs the job itself, and records it so.
  def test_a_job_run_without_a_fork_is_recorded_where_it_runs
    assert_equal :done, HOOK.performed({ "class" => "SmallJob" }, "default") { :done }

    assert_equal [1, 0], JSON.parse(@recorder.take).values_at("requests", "jobs_failed")
  end

  private

  def job(enqueued_at)
    Job.new({ "class" => "SmallJob", "args" => [1], "enqueued_at" => enqueued_at }.compact, "default")
  end

  # As Resque's child: the job through Resque::Job#perform's wrap, then exit!; its status says it recorded nothing.
  def run_in_child(job)
    child = fork do
      begin
        HOOK.performed({ "class" => "SmallJob" }, "default", &job)
      rescue ArgumentError
        nil # Resque's worker reports the failure
      end
      exit!(HOOK.parent_records? ? 0 : 1)
    end
    _, status = Process.wait2(child)
    assert status.success?, "the child knew its job is its parent's to record"
  end
end

# frozen_string_literal: true

require "test_helper"

# Time the app's own timer cannot see, told apart from the wait for a saturated CPU (issue 20).
class AppFiguresTest < Minitest::Test
  AppFigures = Mallard::Analysis::AppFigures

  # The field report: a Rails app at 10 connections on 5 threads, one CPU busy throughout, 120 ms outside the app
  # beyond queueing, no body time. That is the GVL's queue, not hidden work.
  def test_a_saturated_app_is_not_flagged_for_the_wait_for_the_cpu
    assert_empty flags(cpu_s: 19.5, body_ms: nil)
    assert_match(/spent where the app's own timer cannot see it .* the server after the body: 120\.0 ms/,
                 flags(cpu_s: 8.0, body_ms: nil).first, "the same gap on an idle CPU is flagged")
  end

  # A body written line by line is the body's own time, saturated or not.
  def test_a_slow_body_is_flagged_even_on_a_saturated_cpu
    flag = flags(cpu_s: 19.5, body_ms: 150.0).last

    assert_match(/responses take 150\.0 ms \(median\) to write after the app's 60\.0 ms/, flag)
    assert_match(/the app was CPU-bound/, flag)
  end

  # One process can keep one core busy (the GVL); with two CPUs it is saturated at one.
  def test_saturation_is_a_core_per_process_or_the_cpus_the_subject_had
    assert_empty flags(cpu_s: 18.0, body_ms: nil, cpus: 2), "one process: one core is all it can use"
    refute_empty flags(cpu_s: 18.0, body_ms: nil, cpus: 2, pids: [1, 2]), "two processes on two CPUs: half busy"
    assert_empty flags(cpu_s: 36.0, body_ms: nil, cpus: 2, pids: [1, 2])
  end

  private

  def flags(cpu_s:, body_ms:, cpus: 1, pids: [1])
    records = pids.map do |pid|
      Mallard::Run::AgentRecord.new(t: 5.0, pid: pid, requests: 3, in_app_ms: [60.0] * 3, body_ms: [body_ms] * 3,
                                    chunks: [1] * 3, queue_ms: [100.0] * 3)
    end
    external = 160.0 + 120.0 + body_ms.to_f
    load = Mallard::Probe::LoadResult.build(tool: "wrk", requests: 400, duration_s: 20.0, errors: {},
                                            latency_ms: { p50: external, p99: external * 2 })
    AppFigures.call(records, load, cpu_s: cpu_s, cpus: cpus).flags
  end
end

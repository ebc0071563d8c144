# frozen_string_literal: true

require "test_helper"

# A job worker's figures per job class, and which class memory grows with: the regression of each interval's growth
# on its jobs per class (Analysis::ClassGrowth), on runs built here with a known leak and known noise.
class JobClassesTest < Minitest::Test
  Run = Mallard::Run
  Analysis = Mallard::Analysis
  NOISE_KB = 300

  def test_the_class_that_keeps_10_kb_a_job_is_named_growing_and_the_others_not
    classes = judged(leaks: { "LeakyJob" => 10.0, "ChurnJob" => 0.0, "SmallJob" => 0.0 })

    assert_equal "growing", classes["LeakyJob"].judgement
    low, high = classes["LeakyJob"].growth_kb_per_1k_jobs_ci
    assert_operator low, :<=, 10_000
    assert_operator high, :>=, 10_000
    %w[ChurnJob SmallJob].each { |name| assert_equal "not_growing", classes[name].judgement, classes[name].inspect }
  end

  def test_a_run_where_no_class_keeps_anything_names_none
    classes = judged(leaks: { "LeakyJob" => 0.0, "ChurnJob" => 0.0 })

    assert_equal %w[not_growing not_growing], classes.values.map(&:judgement)
  end

  # Always enqueued together: which of the two keeps the memory cannot be told, and the run says so.
  def test_classes_whose_counts_move_together_are_too_thin_never_a_guess
    run = built_run(leaks: { "ParentJob" => 10.0, "ChildJob" => 0.0 }) do |counts|
      counts.merge("ChildJob" => counts["ParentJob"])
    end
    classes = Analysis::JobClasses.call(run).to_h { |part| [part.job_class, part] }

    assert_equal %w[too_thin too_thin], classes.values.map(&:judgement)
    assert_equal %w[collinear collinear], classes.values.map(&:why)
  end

  # Growth with the clock and no job is the backend's own, not the busiest class's.
  def test_growth_with_time_alone_is_blamed_on_no_class
    classes = judged(leaks: { "LeakyJob" => 0.0, "ChurnJob" => 0.0 }, per_second_kb: 400)

    assert_equal %w[not_growing not_growing], classes.values.map(&:judgement)
  end

  # A transient allocation of megabytes at one reading, gone at the next, is no class's.
  def test_a_spike_at_one_reading_is_left_out
    classes = judged(leaks: { "LeakyJob" => 10.0, "ChurnJob" => 0.0, "SmallJob" => 0.0 }, spike_kb: 50_000)

    assert_equal %w[growing not_growing not_growing], classes.values_at("LeakyJob", "ChurnJob", "SmallJob")
                                                             .map(&:judgement)
  end

  def test_a_class_with_few_jobs_is_too_thin
    classes = judged(leaks: { "LeakyJob" => 10.0, "RareJob" => 0.0 }) do |counts|
      counts.merge("RareJob" => (counts["RareJob"] % 3).zero? ? 1 : 0)
    end

    assert_equal %w[too_thin few_jobs], classes["RareJob"].to_h.values_at(:judgement, :why)
    assert_nil classes["RareJob"].growth_kb_per_1k_jobs
  end

  def test_jobs_failures_and_times_are_each_class_own
    classes = judged(leaks: { "LeakyJob" => 10.0, "ChurnJob" => 0.0 })
    run = built_run(leaks: { "LeakyJob" => 10.0, "ChurnJob" => 0.0 })
    last = run.agent.last.job_classes.to_h { |name, jobs, failed| [name, [jobs, failed]] }

    assert_equal last["LeakyJob"], classes["LeakyJob"].to_h.values_at(:jobs, :failed)
    assert_in_delta 30.0, classes["LeakyJob"].time_ms_p50, 0.01
    assert_in_delta 5.0, classes["ChurnJob"].time_ms_p99, 0.01
  end

  def test_a_web_app_or_a_run_without_classes_has_none
    run = built_run(leaks: { "LeakyJob" => 0.0 })

    assert_nil Analysis::JobClasses.call(run.with(meta: Run::Meta.new))
    assert_nil Analysis::JobClasses.call(run.with(agent: run.agent.map { |record| record.with(job_classes: nil) }))
  end

  private

  def judged(...)
    Analysis::JobClasses.call(built_run(...)).to_h { |part| [part.job_class, part] }
  end

  # One process, 40 ledger intervals of 2 s, each running a random mix at a random pace; each class keeps its leak in
  # KiB a job, the process grows per_second_kb a second of its own, and its reading carries noise of ±NOISE_KB (and
  # spike_kb more at the 20th).
  def built_run(leaks:, per_second_kb: 0, spike_kb: 0, &mix)
    random = Random.new(43)
    cumulative = Hash.new(0)
    memory = 100_000.0
    agent = []
    ledger = (0..40).map do |step|
      memory += step_growth(random, leaks, cumulative, per_second_kb, &mix) if step.positive?
      agent << agent_record(10.0 + (step * 2), cumulative, leaks.keys)
      noise = random.rand(-NOISE_KB..NOISE_KB) + (step == 20 ? spike_kb : 0)
      Run::LedgerRecord.new(t: agent.last.t + 0.001, pid: 7, rss_kb: (memory + noise).round + 20_000, file_kb: 20_000)
    end
    meta = Run::Meta.new(subject_pid: 7, target: Run::TargetInfo.new(kind: "sidekiq"))
    Run::SoakRun.new(meta: meta, totals: [], processes: [], agent: agent, ledger: ledger)
  end

  # One interval's jobs, counted into cumulative, and the memory they and the clock added.
  def step_growth(random, leaks, cumulative, per_second_kb)
    counts = leaks.keys.to_h { |name| [name, random.rand(0..1000)] }
    counts = yield(counts) if block_given?
    counts.each { |name, count| cumulative[name] += count }
    (per_second_kb * 2) + counts.sum { |name, count| leaks[name] * count }
  end

  # The tally so far (LeakyJob's every tenth job failed), and one sampled row per class: LeakyJob's 30 ms, the
  # others' 5 ms.
  def agent_record(time, cumulative, names)
    tally = names.map { |name| [name, cumulative[name], name == "LeakyJob" ? cumulative[name] / 10 : 0, 0.0] }
    Run::AgentRecord.new(t: time, pid: 7, requests: cumulative.values.sum, job_classes: tally,
                         job_class: (0...names.size).to_a,
                         job_ms: names.map { |name| name == "LeakyJob" ? 30.0 : 5.0 })
  end
end

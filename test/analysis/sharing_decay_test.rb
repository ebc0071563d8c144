# frozen_string_literal: true

require "test_helper"

# Copy-on-write decay, from a soak's records: each worker's shared (RSS − USS) and private (USS) memory against the
# requests the agent counted in that worker, and where its fall has a knee.
class SharingDecayTest < Minitest::Test
  Run = Mallard::Run
  Decay = Mallard::Analysis::SharingDecay
  MIB = 1024

  # Shared falls as 1 − e^(−n/100) of 60 MiB is written to, then flattens: the knee is near the curve's bend, and a
  # refork there would have kept what was shared then.
  def test_a_worker_whose_sharing_falls_and_flattens_has_a_knee
    worker = Decay.call(soak_run(curved)).workers.first

    assert_equal [11, "agent", "knee"], [worker.pid, worker.requests_source, worker.finding]
    assert_equal [70 * MIB, 600], [worker.shared_start_kb, worker.requests]
    assert_in_delta 0.15, worker.kept, 0.01
    assert_includes 60..200, worker.knee_requests
    assert_includes worker.points.map(&:shared_kb), worker.knee_shared_kb
    assert_equal worker.points.map(&:private_kb).sort, worker.points.map(&:private_kb), "private rises as shared falls"
  end

  def test_a_straight_fall_has_no_knee_and_a_flat_line_no_decay
    straight = Decay.call(soak_run(readings { |n| 70 - (n / 20.0) })).workers.first
    flat = Decay.call(soak_run(readings { |_n| 70 })).workers.first

    assert_equal ["steady_fall", nil], [straight.finding, straight.knee_requests]
    assert_equal ["no_decay", 1.0], [flat.finding, flat.kept]
  end

  def test_too_few_points_say_nothing_and_one_process_has_no_workers
    assert_equal "too_few_points", Decay.call(soak_run(curved.first(3))).workers.first.finding
    assert_nil Decay.call(soak_run(curved.map { |sample| sample.with(role: "main") }))
  end

  # Each tick takes the worker's count between its agent records on either side of it.
  def test_requests_are_the_workers_own_count_between_its_records
    samples = curved
    shifted = samples.map { |sample| sample.with(t: sample.t + 0.5) }

    assert_equal (0..600).step(50).to_a, Decay.call(soak_run(samples)).workers.first.points.map(&:requests)
    assert_equal [25, 75, 125], Decay.call(soak_run(shifted, counted_at: samples)).workers.first.points.first(3)
                                     .map(&:requests), "ticks halfway between two records"
  end

  # A worker without the agent's count shares the load tool's rate evenly with the other workers, from the start of
  # load.
  def test_without_the_agents_count_requests_are_an_even_share_of_the_load
    estimated = Decay.call(soak_run(curved, agent: false)).workers.first

    assert_equal "estimated", estimated.requests_source
    assert_equal [0, 100, 200], estimated.points.first(3).map(&:requests), "100 req/s, its one worker, 1 s a tick"
  end

  def test_a_long_run_keeps_its_last_point_among_at_most_max_points
    many = (0..999).map { |i| sample(i, 70 - (i / 20.0), 10) }
    worker = Decay.call(soak_run(many, agent: false)).workers.first

    assert_operator worker.points.size, :<=, Decay::MAX_POINTS + 1
    assert_equal many.last.t * 100, worker.points.last.requests
  end

  # Solid Queue's dispatcher is a child of the supervisor as its worker is, but runs no jobs: where the titles name
  # the workers, only theirs decay.
  def test_only_the_processes_titled_workers_are_workers
    worker = curved.map { |sample| sample.with(title: "solid-queue-worker(1.7.2): waiting for jobs in *") }
    dispatcher = curved.map do |sample|
      sample.with(pid: 12, title: "solid-queue-dispatcher(1.7.2): dispatching every 1 seconds")
    end
    run = soak_run(worker + dispatcher)

    assert_equal [11], Decay.call(run.with(meta: run.meta.with(subject_pid: 10))).workers.map(&:pid)
    assert_equal [11, 12], Decay.call(soak_run(curved + dispatcher.map { |sample| sample.with(title: nil) }))
                                .workers.map(&:pid), "without titles, every child is a worker"
  end

  private

  # A worker (pid 11) served 50 requests a second, one tick a second, from t = 0: shared 10 MiB of Ruby plus what is
  # left of 60 MiB.
  def curved = readings { |n| 10 + (60 * Math.exp(-n / 100.0)) }

  def readings
    (0..12).map { |i| sample(i, yield(i * 50), 70 - yield(i * 50) + 5) }
  end

  def sample(time, shared_mib, private_mib, role: "child")
    uss = (private_mib * MIB).round
    Run::ProcessSample.new(t: time.to_f, pid: 11, role: role, rss_kb: (shared_mib * MIB).round + uss, uss_kb: uss,
                           pss_kb: uss)
  end

  # The agent's records: the worker's count (50 requests a second) at each of counted_at's ticks.
  def soak_run(samples, agent: true, counted_at: samples)
    counts = counted_at.map { |s| Run::AgentRecord.new(t: s.t, pid: 11, requests: (s.t * 50).round) } if agent
    main = Run::ProcessSample.new(t: 0.0, pid: 10, role: "main", rss_kb: 80 * MIB, uss_kb: 5 * MIB, pss_kb: 40 * MIB)
    meta = Run::Meta.new(options: {}, phases: Run::Phases.new(load_started_t: 0.0, load_finished_t: 20.0))
    Run::SoakRun.new(meta: meta, totals: [], processes: [main, *samples], agent: counts || [],
                     load: Mallard::Probe::LoadResult.new(rps: 100.0))
  end
end

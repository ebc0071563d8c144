# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# Copy-on-write decay end to end (issue 42): the cow_decay fixture, preloaded in Puma's master, served by two workers
# that each write to 128 random pages of its 50 MiB a request. Each worker's shared memory falls with the requests it
# serves and its private memory rises; and the summary's points agree with this test's own reads of each worker's
# smaps_rollup during the run, set on the run's clock by the subject's own MALLARD_T0.
class SharingDecayIntegrationTest < Minitest::Test
  include Processes

  APP = File.expand_path("../fixtures/apps/cow_decay", __dir__)
  # A point of the summary and a read of this test taken this close together (s) are set against each other: at the
  # steepest of the fall a worker unshares about 4 MiB a second.
  # The test reads every 0.1 s: its reads either side of a point are this far apart at most, unless a read was lost.
  BRACKET_S = 0.25
  TOLERANCE = 0.03

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-sharing-decay")
    @out = File.join(@tmp, "run")
  end

  def teardown
    passed? ? FileUtils.remove_entry(@tmp) : warn("the soak kept in #{@tmp}")
    super
  end

  def test_each_workers_sharing_falls_with_its_requests_as_its_own_smaps_say
    reads = []
    watcher = Thread.new { watch(reads) }
    out, err, status = mallard("soak", APP, "--workers", "2", "--threads", "2", "--duration", "12", "--rate", "60",
                               "--interval", "0.25", "--json", "--out", @out, timeout: 90)
    watcher.kill
    assert_equal 0, status.exitstatus, err
    workers = JSON.parse(out).dig("sharing_decay", "workers")

    assert_equal 2, workers.size, "one entry per worker, none for the master"
    workers.each { |worker| assert_decays(worker) }
    assert_points_are_the_workers_own(workers, reads)
  end

  private

  # Shared falls as the worker serves requests (to under 60% of what it shared at fork) and private rises; the fall
  # bends where most pages have been written to.
  def assert_decays(worker)
    summed = worker.except("points")

    assert_equal "agent", worker["requests_source"]
    # A request a connection (two workers, Experiments::Soak.new_connections?), so each serves about half of the 720;
    # on keep-alive connections a fresh-clone run's workers served 564 and 152, the second still keeping 40% with a
    # knee at 75. 100 requests already write to 63% of the pages.
    assert_operator worker["requests"], :>, 100, summed
    assert_operator worker["shared_start_kb"], :>, 50 * 1024, "preloaded: the 50 MiB shared from fork"
    assert_operator worker["kept"], :<, 0.6, summed
    assert_equal "knee", worker["finding"], summed
    assert_includes 1...worker["requests"], worker["knee_requests"]
    assert_curve(worker["points"])
  end

  # In the order of the requests served, shared never rises by more than a few pages, and private rises by what the
  # worker wrote to.
  def assert_curve(points)
    requests, shared, own = %w[requests shared_kb private_kb].map { |key| points.map { |point| point[key] } }

    assert_equal requests.sort, requests
    assert shared.each_cons(2).all? { |a, b| b <= a + 512 }, "shared: #{shared}"
    assert_operator own.last - own.first, :>, 20 * 1024, "the pages it wrote to are its own now"
  end

  # Each point lies between this test's reads of the same worker just before it and just after it (at most
  # BRACKET_S apart), within TOLERANCE of the worker's memory. Not the nearest read alone: while a worker decays it
  # writes 512 KiB a request, and a fresh-clone run's point and the read 33 ms after it stood 2.4 MiB apart.
  def assert_points_are_the_workers_own(workers, reads)
    paired = workers.sum do |worker|
      own = reads.select { |read| read[:pid] == worker["pid"] }
      worker["points"].count do |point|
        before, after = bracket(own, point["t"])
        before && after && after[:t] - before[:t] <= BRACKET_S && assert_between(point, before, after)
      end
    end
    assert_operator paired, :>=, 6, "points with this test's reads on both sides: #{reads.size} reads"
  end

  # The reads just before the moment and just after it.
  def bracket(reads, moment)
    earlier, later = reads.partition { |read| read[:t] <= moment }
    [earlier.max_by { |read| read[:t] }, later.min_by { |read| read[:t] }]
  end

  # Of the worker's whole memory: its private part starts at a few MiB, where a page or two is a large share.
  def assert_between(point, before, after)
    delta = TOLERANCE * (before[:shared_kb] + before[:private_kb])
    said = "pid #{before[:pid]} at #{point['t']} s: #{point} between #{before} and #{after}"
    %i[shared_kb private_kb].each do |part|
      low, high = [before[part], after[part]].minmax
      assert_includes (low - delta)..(high + delta), point[part.to_s], said
    end
  end

  # While the soak runs: the subject's workers (its children), each one's shared (RSS − USS) and private (USS) memory
  # from its own smaps_rollup, on the run's clock (the monotonic clock less the subject's MALLARD_T0), every 0.1 s.
  def watch(reads)
    origin = nil
    loop do
      subject = subject_pid
      origin ||= subject && run_origin(subject)
      children(subject).each { |pid| reads << read(pid, origin) } if origin
      reads.compact!
      sleep 0.1
    end
  end

  def subject_pid
    JSON.parse(File.read(File.join(@out, "meta.json")))["subject_pid"]
  rescue JSON::ParserError, SystemCallError
    nil
  end

  def run_origin(pid)
    environ = File.binread("/proc/#{pid}/environ").split("\0")
    Float(environ.find { |pair| pair.start_with?("MALLARD_T0=") }&.split("=", 2)&.last, exception: false)
  rescue SystemCallError
    nil
  end

  def children(pid)
    Dir.glob("/proc/#{pid}/task/*/children").flat_map { |file| File.read(file).split.map(&:to_i) }
  rescue SystemCallError
    []
  end

  def read(pid, origin)
    before = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    rollup = File.read("/proc/#{pid}/smaps_rollup")
    t = ((before + Process.clock_gettime(Process::CLOCK_MONOTONIC)) / 2) - origin
    rss, clean, dirty = %w[Rss Private_Clean Private_Dirty].map { |key| Integer(rollup[/^#{key}:\s+(\d+)/, 1]) }
    { pid: pid, t: t, shared_kb: rss - clean - dirty, private_kb: clean + dirty }
  rescue SystemCallError, TypeError
    nil
  end
end

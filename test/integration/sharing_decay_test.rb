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
  PAIRED_WITHIN_S = 0.05
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
    # Puma's workers keep the keep-alive connections each accepted as the load began, so their shares differ (a
    # fresh-clone run: 564 and 152 of 720, the second still keeping 40% with a knee at 75); 100 requests already write
    # to 63% of the pages.
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

  # Each point taken within PAIRED_WITHIN_S of one of this test's reads of the same worker agrees with it, within
  # TOLERANCE of the worker's memory.
  def assert_points_are_the_workers_own(workers, reads)
    paired = workers.sum do |worker|
      own = reads.select { |read| read[:pid] == worker["pid"] }
      worker["points"].count do |point|
        read = own.min_by { |r| (r[:t] - point["t"]).abs }
        read && (read[:t] - point["t"]).abs <= PAIRED_WITHIN_S && assert_agrees(point, read)
      end
    end
    assert_operator paired, :>=, 6, "points read by this test at the same moment: #{reads.size} reads"
  end

  # Of the worker's whole memory: its private part starts at a few MiB, where a page or two is a large share.
  def assert_agrees(point, read)
    delta = TOLERANCE * (read[:shared_kb] + read[:private_kb])
    said = "pid #{read[:pid]} at #{point['t']} s: #{point} against #{read}"
    assert_in_delta read[:shared_kb], point["shared_kb"], delta, said
    assert_in_delta read[:private_kb], point["private_kb"], delta, said
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

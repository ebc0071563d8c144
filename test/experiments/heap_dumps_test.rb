# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# `mallard heap`'s schedule without an app to answer it (as when the app's user cannot read heap/): the run stops
# asking after the pickup timeout and says why, instead of waiting out the dump timeout; nothing it says counts a
# dump that never happened.
class HeapDumpsTest < Minitest::Test
  def setup
    @tmp = Dir.mktmpdir("mallard-heap-dumps")
    @run_dir = Mallard::Run::Directory.create(command: "heap", out: File.join(@tmp, "run"))
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_a_request_no_app_takes_is_given_up_after_the_pickup_timeout_saying_why
    lines = []
    dumps = Mallard::Experiments::HeapDumps.new(run_dir: @run_dir, duration: 1.0, notice: ->(line) { lines << line },
                                                timeouts: [0.3, 5])
    dumps.tick(0.3)
    started = Mallard::Clock.monotonic
    dumps.after_load
    dumps.record

    assert_operator Mallard::Clock.monotonic - started, :<, 2, "given up after the pickup timeout, not the dump's"
    assert_equal ["mallard: the load has ended; waiting for heap dumps A, B, C (each at most 0.3 s to start, 5 s to " \
                  "write)"],
                 lines
    run = Mallard::Run::HeapReader.read(@run_dir)
    assert_match(/\Athe app did not take dump request 1 within 0.3 s \(its agent polls .*heap: can the app's user read/,
                 run.schedule["gave_up"])
    assert_equal 0o700, File.stat(File.join(@run_dir.path, "heap")).mode & 0o777
    assert_nil Mallard::Analysis::HeapLatency.call(run.schedule), "no probe: no latency"
  end
end

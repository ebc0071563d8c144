# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# Pitchfork's tree read from a fake /proc: workers and the mold by their titles, reforks by the monitor's log.
class PitchforkTreeTest < Minitest::Test
  PitchforkTree = Mallard::Probe::PitchforkTree
  PumaShape = Mallard::PumaShape

  # As Pitchfork 0.18.2 logged a refork after 50 requests (abridged): each mold says it is ready once, and twice
  # "spawned" (its own line and the monitor's).
  LOG = <<~LOG
    I, [2026-11-28T14:10:09.359060 #9537]  INFO -- [Pitchfork]: mold gen=0 pid=9537 spawned
    I, [2026-11-28T14:10:09.359608 #9526]  INFO -- [Pitchfork]: mold gen=0 pid=9537 ready
    I, [2026-11-28T14:10:13.567672 #9545]  INFO -- [Pitchfork]: worker=0 gen=0 pid=9545 processed 50 requests, triggering a refork
    I, [2026-11-28T14:10:13.574004 #9773]  INFO -- [Pitchfork]: mold gen=1 pid=9773 spawned
    I, [2026-11-28T14:10:13.576693 #9526]  INFO -- [Pitchfork]: mold gen=1 pid=9773 spawned
    I, [2026-11-28T14:10:13.576829 #9526]  INFO -- [Pitchfork]: mold gen=1 pid=9773 ready
    I, [2026-11-28T14:10:13.576843 #9526]  INFO -- [Pitchfork]: Terminating old mold gen=0 pid=9537
  LOG

  def setup
    @proc = Dir.mktmpdir("mallard-pitchfork-tree-test")
    @log = File.join(@proc, "subject.log")
    File.write(@log, LOG)
  end

  def teardown
    FileUtils.remove_entry(@proc)
  end

  # The monitor, the mold and two workers, all its children (Pitchfork re-parents the workers to it).
  def test_a_monitor_a_mold_and_two_workers_after_one_refork
    process(500, "pitchfork monitor - config.ru", children: "501 502 503")
    process(501, "pitchfork (gen:1) mold - ready")
    [502, 503].each { |pid| process(pid, "pitchfork (gen:1) worker[#{pid - 502}] - requests: 3, waiting") }
    seen = PitchforkTree.read(500, log_path: @log, proc_root: @proc)

    assert_equal({ workers: 2, molds: 1, reforks: 1, pids: [500, 501, 502, 503] }, seen)
    assert_nil PitchforkTree.mismatch(PumaShape.parse("2x1-pitchfork"), seen)
    assert_equal "the Pitchfork tree is not 3x1-pitchfork: 2 workers, not 3",
                 PitchforkTree.mismatch(PumaShape.parse("3x1-pitchfork"), seen)
  end

  def test_no_mold_and_no_log_is_said
    process(600, "pitchfork monitor - config.ru", children: "601")
    process(601, "pitchfork (gen:0) worker[0] - ready")
    seen = PitchforkTree.read(600, log_path: File.join(@proc, "missing.log"), proc_root: @proc)

    assert_equal 0, seen[:reforks]
    assert_match(/no mold to fork workers from/, PitchforkTree.mismatch(PumaShape.parse("1x1-pitchfork"), seen))
  end

  private

  def process(pid, title, children: "")
    task = FileUtils.mkdir_p(File.join(@proc, pid.to_s, "task", pid.to_s)).first
    File.write(File.join(@proc, pid.to_s, "cmdline"), "#{title}\0")
    File.write(File.join(task, "comm"), "ruby\n")
    File.write(File.join(task, "children"), children)
  end
end

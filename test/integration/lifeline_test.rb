# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# The real executable killed with SIGKILL mid-run: whatever it started (Puma's master and workers, wrk, a copy of the
# app beside it and its load, doctor's command) must go with it, and the run's files must stop changing.
class LifelineIntegrationTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)
  # The watchdog's grace period for TERM, then KILL, with room to spare on a busy machine.
  GONE_WITHIN = 8
  INTERVAL = 0.5

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-lifeline-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_soak_killed_mid_run_leaves_no_process_and_its_agent_stops_writing
    tag = new_tag("soak-kill")
    out_dir = File.join(@tmp, "run")
    mallard = start_mallard(tag, "soak", File.join(APPS, "stable"), "--workers", "2", "--neighbours", "1",
                            "--duration", "30", "--interval", INTERVAL.to_s, "--out", out_dir)
    subject = wait_for(message: "the subject never came up") { meta(out_dir)&.fetch("subject_pid", nil) }
    wait_for(message: "no process sent a request record") { agent_requests(out_dir).positive? }
    t0 = Float(File.binread("/proc/#{subject}/environ")[/MALLARD_T0=([\d.]+)/, 1])
    started = processes_tagged(tag).size

    Process.kill("KILL", mallard)
    killed_t = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
    Process.wait(mallard)

    assert_operator started, :>=, 9, "mallard, its watchdog, Puma's master and two workers, wrk, and its " \
                                     "neighbour's master, two workers and wrk"
    assert_all_gone(tag)
    assert_agent_log_final(out_dir, killed_t)
  end

  def test_doctor_killed_while_it_waits_for_its_command_leaves_no_process
    tag = new_tag("doctor-kill")
    # A tree that keeps changing never settles, so doctor is still waiting when it is killed.
    mallard = start_mallard(tag, "doctor", "--wait", "60", "--", "sh", "-c",
                            "sleep 600 & while :; do sleep 0.2; done")
    wait_for(message: "the command never started") { processes_tagged(tag).size >= 5 } # sh, 2 sleeps

    Process.kill("KILL", mallard)
    Process.wait(mallard)

    assert_all_gone(tag)
  end

  private

  def start_mallard(tag, *args)
    pid = Process.spawn({ "MALLARD_TEST_TAG" => tag }, Gem.ruby, EXE, *args, out: File::NULL, err: File::NULL)
    @spawned << pid
    pid
  end

  def assert_all_gone(tag)
    gone = eventually(GONE_WITHIN) { processes_tagged(tag).empty? }
    assert gone, -> { "survived mallard: #{command_lines(processes_tagged(tag))}" }
  end

  # Nothing appended once the processes are gone, and nothing recorded after mallard died but what an
  # interval already under way wrote (its check came just before the kill).
  def assert_agent_log_final(out_dir, killed_t)
    path = File.join(out_dir, "agent.jsonl")
    before = File.binread(path)
    sleep INTERVAL * 4

    assert_equal before, File.binread(path), "agent.jsonl changed after every process was gone"
    last_t = before.each_line.map { |line| JSON.parse(line)["t"] }.max
    assert_operator last_t, :<=, killed_t + INTERVAL + 0.5, "the agent kept recording after mallard was killed"
  end

  def agent_requests(out_dir)
    File.foreach(File.join(out_dir, "agent.jsonl")).sum do |line|
      record = JSON.parse(line)
      record["kind"] == "agent" ? record["requests"] : 0
    end
  rescue Errno::ENOENT
    0
  end

  def meta(out_dir)
    JSON.parse(File.read(File.join(out_dir, "meta.json")))
  rescue Errno::ENOENT, JSON::ParserError
    nil
  end
end

# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require "mallard/agent/owner"
require "mallard/agent/recorder"

# The agent's view of its mallard, on real processes standing in for mallard.
class OwnerTest < Minitest::Test
  include Processes

  def test_alive_while_the_process_runs_and_not_once_it_was_killed_or_reaped
    pid = spawn_ruby("")
    owner = Mallard::Agent::Owner.new(pid)
    assert owner.alive?

    Process.kill("KILL", pid)
    wait_for(message: "never became a zombie") { zombie?("/proc/#{pid}") }
    refute owner.alive?, "killed, not yet reaped: a zombie"

    Process.wait(pid)
    refute owner.alive?
  end

  def test_a_process_already_gone_is_not_alive
    refute Mallard::Agent::Owner.new(dead_pid).alive?
  end

  def test_reads_the_pid_from_the_lifeline_variable
    assert_equal Process.pid, Mallard::Agent::Owner.from_env("MALLARD_LIFELINE" => "#{Process.pid}:0a1b").pid
    assert_nil Mallard::Agent::Owner.from_env({})
    assert_nil Mallard::Agent::Owner.from_env("MALLARD_LIFELINE" => "garbage")
  end

  # It is asked every interval inside the app: it must leave nothing in the app's heap.
  def test_asking_allocates_nothing
    owner = Mallard::Agent::Owner.new(spawn_ruby(""))
    counts = Array.new(5) do
      before = GC.stat(:total_allocated_objects)
      10.times { owner.alive? }
      GC.stat(:total_allocated_objects) - before
    end

    assert_equal 0, counts.min, counts.inspect
  end

  # A fork while another thread reads into the buffer (Ruby locks a string it reads into until the read returns)
  # leaves the child a copy locked for good; a recorder's child must still be able to ask. The read here is a pipe's,
  # held open until the child has asked, where Owner#alive?'s pread of /proc is over in microseconds.
  def test_a_recorder_forked_while_its_owner_is_read_still_asks_in_the_child
    Dir.mktmpdir do |dir|
      owner = Mallard::Agent::Owner.new(spawn_ruby(""))
      recorder = Mallard::Agent::Recorder.new(path: File.join(dir, "agent.jsonl"), interval: 60, owner: owner)
      reader, writer = IO.pipe
      reading = Thread.new { reader.read(8, owner.instance_variable_get(:@buffer)) }
      Thread.pass until reading.status == "sleep"
      child = fork do
        recorder.after_fork
        exit!(owner.alive? ? 0 : 1)
      end
      _, status = Process.wait2(child)
      writer.write("released")
      reading.join

      assert status.success?, "the child could not ask whether its mallard lives (#{status.inspect})"
    end
  end

  def test_a_recorder_whose_mallard_is_gone_writes_nothing_more
    Dir.mktmpdir do |dir|
      path = File.join(dir, "agent.jsonl")
      owner_pid = spawn_ruby("")
      recorder = Mallard::Agent::Recorder.new(path: path, interval: 0.05, owner: Mallard::Agent::Owner.new(owner_pid))
      recorder.start
      wait_for(message: "no record while mallard lived") { File.exist?(path) }

      stop_process(owner_pid)
      sleep 0.2 # the thread's next tick sees it
      written = File.read(path)
      sleep 0.3
      recorder.stop

      assert_equal written, File.read(path), "records were appended after mallard was gone"
    end
  end
end

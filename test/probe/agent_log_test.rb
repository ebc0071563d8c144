# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# Following agent.jsonl while the agent appends to it: each read picks up where the last one stopped.
class AgentLogTest < Minitest::Test
  def setup
    @tmp = Dir.mktmpdir("mallard-agent-log-test")
    @path = File.join(@tmp, "agent.jsonl")
    @log = Mallard::Probe::AgentLog.new(@path)
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_no_file_yet_is_no_requests
    assert_equal 0, @log.requests
  end

  def test_a_line_split_across_two_reads_is_joined
    line = record(pid: 1, requests: 40)
    append(line[0, 25])
    assert_equal 0, @log.requests, "half a line is not read yet"

    append(line[25..])
    assert_equal 40, @log.requests
  end

  # Each process counts its own requests cumulatively: the latest count per pid, summed over pids.
  def test_requests_are_the_latest_count_of_each_process_summed
    append(record(pid: 1, requests: 10) + record(pid: 2, requests: 5))
    assert_equal 15, @log.requests

    append(record(pid: 1, requests: 30))
    assert_equal 35, @log.requests, "pid 2 still counts its last 5"

    append(record(pid: 2, requests: 20) + record(pid: 3, requests: 1))
    assert_equal 51, @log.requests
  end

  def test_damaged_lines_and_other_records_are_passed_over
    append("not json\n#{JSON.generate({ 'kind' => 'total', 't' => 1.0, 'requests' => 999 })}\n")
    append(record(pid: 1, requests: 7))

    assert_equal 7, @log.requests
  end

  def test_a_record_without_a_count_keeps_the_last_one
    append(record(pid: 1, requests: 7))
    append("#{JSON.generate({ 'kind' => 'agent', 't' => 2.0, 'pid' => 1 })}\n")

    assert_equal 7, @log.requests
  end

  private

  def record(pid:, requests:)
    fields = { "kind" => "agent", "t" => 1.0, "pid" => pid, "gc" => { "count" => 1 }, "requests" => requests }
    "#{JSON.generate(fields)}\n"
  end

  def append(text)
    File.open(@path, "a") { |file| file.write(text) }
  end
end

# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# A soak's run directory as a killed run can leave it: records out of order, kinds mixed, a line cut short.
class SoakReaderTest < Minitest::Test
  Run = Mallard::Run

  def setup
    @tmp = Dir.mktmpdir("mallard-soak-reader-test")
    @directory = Run::Directory.new(@tmp)
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_records_are_split_by_kind_and_put_in_time_order
    write_lines("samples.jsonl", total(1.5, 11), memory(1.0, 7), total(0.5, 10), { "kind" => "later", "t" => 2.0 })
    write_lines("agent.jsonl", { "kind" => "agent", "t" => 1.2, "pid" => 7, "requests" => 30 },
                { "kind" => "agent", "t" => 0.7, "pid" => 7, "requests" => 10 })
    run = read

    assert_equal [0.5, 1.5], run.totals.map(&:t)
    assert_equal [10, 11], run.totals.map(&:rss_kb)
    assert_equal [7], run.processes.map(&:pid)
    assert_equal [10, 30], run.agent.map(&:requests)
    assert_equal 0, run.skipped, "a kind this mallard does not know is no damage"
  end

  # A "gc" line's events join the run's GC events; the GCs it lost are kept apart, with its time and process.
  def test_gc_lines_give_events_and_the_gcs_each_lost
    write_lines("agent.jsonl", gc_line(2.0, dropped: 3, events: [[1.5, 0.4]]),
                gc_line(1.0, dropped: 0, events: [[0.5, 0.3]]))
    run = read

    assert_equal([[0.5, 0.3], [1.5, 0.4]], run.gc_events.map { |event| [event.t, event.pause_ms] })
    assert_equal([[2.0, 7, 3]], run.gc_drops.map { |drop| [drop.t, drop.pid, drop.count] })
  end

  def test_a_line_cut_short_is_counted
    File.write(@directory.file("samples.jsonl"), "#{JSON.generate(total(0.5, 10))}\n{\"kind\":\"total\",\"t\":1")
    File.write(@directory.file("agent.jsonl"), "garbage\n")
    run = read

    assert_equal 1, run.totals.size
    assert_equal 2, run.skipped
  end

  # A run killed before it wrote anything but its meta.json still reads.
  def test_missing_files_are_empty
    @directory.write_json("meta.json", { "schema_version" => 2, "command" => "soak", "subject_pid" => 7 })
    run = read

    assert_equal 7, run.meta.subject_pid
    assert_empty run.totals
    assert_empty run.agent
    assert_nil run.load
    assert_nil run.summary
    assert_equal 0..Float::INFINITY, run.phases.load_window, "no phase recorded: every sample counts"
  end

  private

  def read = Run::SoakReader.read(@directory)

  def gc_line(time, dropped:, events:)
    { "kind" => "gc", "t" => time, "pid" => 7, "requests" => 0, "dropped" => dropped, "events" => events }
  end

  def total(time, rss)
    { "kind" => "total", "t" => time, "rss_kb" => rss, "pss_kb" => rss / 2, "processes" => 1 }
  end

  def memory(time, pid)
    { "kind" => "memory", "t" => time, "pid" => pid, "role" => "main", "rss_kb" => 999 }
  end

  def write_lines(name, *records)
    File.write(@directory.file(name), records.map { |record| "#{JSON.generate(record)}\n" }.join)
  end
end

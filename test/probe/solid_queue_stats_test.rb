# frozen_string_literal: true

require "test_helper"
require "open3"
require "tmpdir"

# Solid Queue's queues read from a real SQLite file with the sqlite3 tool, as Target::SolidQueueStore reads a run's
# store: Solid Queue's own tables (the columns read here), rows written as its workers write them. A store whose queue
# database lacks them is read in its primary, and there is none here.
class SolidQueueStatsTest < Minitest::Test
  TABLES = <<~SQL
    CREATE TABLE solid_queue_jobs (id integer PRIMARY KEY, finished_at datetime(6));
    CREATE TABLE solid_queue_failed_executions (id integer PRIMARY KEY, job_id bigint);
    CREATE TABLE solid_queue_ready_executions (id integer PRIMARY KEY, job_id bigint, created_at datetime(6));
    CREATE TABLE solid_queue_scheduled_executions (id integer PRIMARY KEY, job_id bigint);
    CREATE TABLE solid_queue_processes (id integer PRIMARY KEY, pid integer, kind varchar);
  SQL

  def setup
    @dir = Dir.mktmpdir("mallard-solid-queue-stats")
    @path = File.join(@dir, "queue.sqlite3")
  end

  def teardown
    FileUtils.remove_entry(@dir)
  end

  def test_finished_failed_waiting_and_the_oldest_waits_age
    sqlite(TABLES, "INSERT INTO solid_queue_jobs (finished_at) VALUES (datetime('now')), (datetime('now')), (NULL);",
           "INSERT INTO solid_queue_failed_executions (job_id) VALUES (3);",
           "INSERT INTO solid_queue_ready_executions (job_id, created_at) VALUES " \
           "(4, strftime('%Y-%m-%d %H:%M:%f', 'now', '-2 seconds')), (5, strftime('%Y-%m-%d %H:%M:%f', 'now'));",
           "INSERT INTO solid_queue_scheduled_executions (job_id) VALUES (6);")
    stats = Mallard::Probe::SolidQueueStats.new(store).read

    assert_equal [3, 1, 2, 1, 1], stats.values_at(:processed, :failed, :enqueued, :retries, :dead)
    assert_in_delta 2000, stats[:latency_ms], 500
  end

  def test_nothing_waiting_is_no_wait
    sqlite(TABLES)

    assert_equal({ processed: 0, failed: 0, enqueued: 0, latency_ms: 0.0, retries: 0, dead: 0 },
                 Mallard::Probe::SolidQueueStats.new(store).read)
  end

  def test_a_store_without_solid_queues_tables_is_a_failed_read
    sqlite("CREATE TABLE other (id integer);")

    error = assert_raises(Mallard::Target::SolidQueueStore::Failed) do
      Mallard::Probe::SolidQueueStats.new(store).read
    end
    assert_match(%r{could not read .*/primary\.sqlite3}, error.message)
  end

  private

  # As db:prepare leaves a Rails 8 app's store: Solid Queue's tables in queue.sqlite3.
  def store = Mallard::Target::SolidQueueStore.new(@dir)

  def sqlite(*statements)
    _, err, status = Open3.capture3("sqlite3", @path, stdin_data: statements.join("\n"))
    assert status.success?, err
  end
end

# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# GoodJob's queues read from a real PostgreSQL server of mallard's own with psql, as a GoodJob run reads its store:
# GoodJob's own good_jobs columns (those read here), rows as its worker leaves them. Skipped without PostgreSQL.
class GoodJobStatsTest < Minitest::Test
  TABLE = <<~SQL.tr("\n", " ")
    CREATE TABLE good_jobs (id serial PRIMARY KEY, scheduled_at timestamp, performed_at timestamp,
                            finished_at timestamp, error text, created_at timestamp NOT NULL DEFAULT now())
  SQL

  def setup
    skip "PostgreSQL is not installed" unless Mallard::Target::PostgresServer.bin_dir
    @tmp = Dir.mktmpdir("mallard-good-job-stats")
    @server = Mallard::Target::PostgresServer.new.start(Mallard::Run::Directory.new(@tmp))
    @server.query(TABLE)
  end

  def teardown
    @server&.remove
    FileUtils.remove_entry(@tmp) if @tmp
  end

  # One server for both readings: each costs a cluster.
  def test_finished_discarded_due_running_and_scheduled_jobs
    assert_equal({ processed: 0, failed: 0, enqueued: 0, latency_ms: 0.0, retries: 0, dead: 0 },
                 Mallard::Probe::GoodJobStats.new(@server).read, "nothing waiting is no wait")
    @server.query(<<~SQL.tr("\n", " "))
      INSERT INTO good_jobs (scheduled_at, performed_at, finished_at, error) VALUES
        (now(), now(), now(), NULL), (now(), now(), now(), NULL), (now(), now(), now(), 'ZeroDivisionError: boom'),
        (now() - interval '2 seconds', NULL, NULL, NULL), (now(), NULL, NULL, NULL),
        (now() - interval '9 seconds', now(), NULL, NULL), (now() + interval '1 hour', NULL, NULL, 'retried')
    SQL
    stats = Mallard::Probe::GoodJobStats.new(@server).read

    assert_equal [3, 1, 3, 1, 1], stats.values_at(:processed, :failed, :enqueued, :retries, :dead)
    assert_in_delta 2000, stats[:latency_ms], 500,
                    "the oldest waiting job's wait; the running one (due, not finished) waits no more"
  end
end

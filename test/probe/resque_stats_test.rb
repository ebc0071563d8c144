# frozen_string_literal: true

require "test_helper"
require "json"

# Resque's keys as Resque 3 writes them (under its namespace), read back from outside: pushed here as Resque pushes
# (the system's Ruby has no Resque), the run's own soak checks them against Resque itself (test/ruby33/resque_test.rb).
class ResqueStatsTest < Minitest::Test
  include Processes
  include RedisServers

  def test_reads_the_queues_counters_and_the_jobs_being_run
    url = start_redis
    now = Time.now.to_f
    redis_call(url, "SADD", "resque:queues", "default")
    redis_call(url, "SADD", "resque:queues", "mail")
    redis_call(url, "RPUSH", "resque:queue:default", job(1, now - 2), job(2, now - 1))
    redis_call(url, "RPUSH", "resque:queue:mail", job(3, now - 0.5))
    redis_call(url, "SET", "resque:stat:processed", "12")
    redis_call(url, "SET", "resque:stat:failed", "2")
    redis_call(url, "RPUSH", "resque:failed", "{}")
    redis_call(url, "SADD", "resque:workers", "host:41:*", "host:42:*")
    redis_call(url, "SET", "resque:worker:host:41:*", job(0, now - 3)) # on a job, taken off its queue

    stats = read(url, now: now)

    assert_equal [12, 2, 4, nil, 1], stats.values_at(:processed, :failed, :enqueued, :retries, :dead)
    assert_in_delta 2000, stats[:latency_ms], 1 # the oldest waiting job: the first of its list
  end

  # Resque's own client adds no enqueued_at: with jobs waiting, their age is not known.
  def test_jobs_without_a_time_of_enqueue_have_no_age
    url = start_redis
    redis_call(url, "SADD", "resque:queues", "default")
    redis_call(url, "RPUSH", "resque:queue:default", JSON.generate("class" => "SmallJob", "args" => [1]))

    assert_equal [1, nil], read(url).values_at(:enqueued, :latency_ms)
  end

  def test_an_empty_redis_has_nothing_waiting
    assert_equal({ processed: 0, failed: 0, enqueued: 0, latency_ms: 0.0, retries: nil, dead: 0 }, read(start_redis))
  end

  private

  def read(url, now: Time.now.to_f)
    Mallard::Probe::ResqueStats.new(Mallard::Probe::RedisConnection.new(url)).read(now: now)
  end

  def job(n, enqueued_at) = JSON.generate("class" => "SmallJob", "args" => [n], "enqueued_at" => enqueued_at)
end

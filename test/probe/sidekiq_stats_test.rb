# frozen_string_literal: true

require "test_helper"
require "json"

# Sidekiq's keys as Sidekiq itself writes them (its client, pushing into a real Redis), read back from outside.
class SidekiqStatsTest < Minitest::Test
  include Processes
  include RedisServers

  def test_reads_what_sidekiqs_own_client_pushed
    url = start_redis
    push = <<~RUBY
      require "sidekiq"
      Redis.sadd_returns_boolean = false if Redis.respond_to?(:sadd_returns_boolean=)
      Sidekiq::Client.push_bulk("class" => "Nothing", "queue" => "default", "args" => [[1], [2], [3]])
      Sidekiq::Client.push("class" => "Nothing", "queue" => "mail", "args" => [4])
    RUBY
    # Outside mallard's bundle, as mallard runs a workload: Sidekiq is the system's, not one of mallard's gems.
    env = Mallard::Target::SubjectEnvironment.build(allocator_env: {}, agent: nil).merge("REDIS_URL" => url)
    _, err, status = Open3.capture3(env, Gem.ruby, "-e", push)
    assert status.success?, err
    redis_call(url, "SET", "stat:processed", "12")
    redis_call(url, "SET", "stat:failed", "2")

    stats = Mallard::Probe::SidekiqStats.new(Mallard::Probe::RedisConnection.new(url)).read(now: Time.now.to_f + 2)

    assert_equal 4, stats[:enqueued]
    assert_equal 12, stats[:processed]
    assert_equal 2, stats[:failed]
    assert_in_delta 2000, stats[:latency_ms], 1000 # the oldest job, aged two seconds on
    assert_equal [0, 0], stats.values_at(:retries, :dead)
  end

  def test_an_empty_redis_has_nothing_waiting
    stats = Mallard::Probe::SidekiqStats.new(Mallard::Probe::RedisConnection.new(start_redis)).read

    assert_equal({ processed: 0, failed: 0, enqueued: 0, latency_ms: 0.0, retries: 0, dead: 0 }, stats)
  end

  def test_sidekiq_8s_millisecond_timestamps_are_read_as_such
    url = start_redis
    now = Time.now.to_f
    redis_call(url, "SADD", "queues", "default")
    redis_call(url, "LPUSH", "queue:default", JSON.generate("class" => "X", "enqueued_at" => ((now - 3) * 1000).round))

    stats = Mallard::Probe::SidekiqStats.new(Mallard::Probe::RedisConnection.new(url)).read(now: now)

    assert_in_delta 3000, stats[:latency_ms], 5
  end
end

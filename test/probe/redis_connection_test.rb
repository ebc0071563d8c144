# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# The minimal RESP client against a real redis-server.
class RedisConnectionTest < Minitest::Test
  include Processes
  include RedisServers

  def setup
    super
    @url = start_redis
    @redis = Mallard::Probe::RedisConnection.new(@url)
  end

  def teardown
    @redis&.close
    super
  end

  def test_replies_of_every_type
    assert_equal "PONG", @redis.call("PING")
    assert_equal "OK", @redis.call("SET", "k", "a\r\nb\xFF".b)
    assert_equal "a\r\nb\xFF".b, @redis.call("GET", "k")
    assert_nil @redis.call("GET", "missing")
    assert_equal 3, @redis.call("RPUSH", "list", "x", "y", "z")
    assert_equal %w[x y z], @redis.call("LRANGE", "list", 0, -1)
    assert_equal "z", @redis.call("LINDEX", "list", -1)
  end

  def test_a_large_value_arrives_whole
    big = "v" * 300_000
    @redis.call("SET", "big", big)

    assert_equal big, @redis.call("GET", "big")
  end

  def test_pipelined_replies_come_back_in_order
    assert_equal ["OK", "1", 0], @redis.pipelined([%w[SET a 1], %w[GET a], %w[LLEN nothing]])
  end

  def test_an_error_reply_raises_and_the_next_call_still_works
    error = assert_raises(Mallard::Probe::RedisConnection::Failed) { @redis.pipelined([%w[NOSUCHCOMMAND], %w[PING]]) }

    assert_match(/answered: ERR unknown command/, error.message)
    assert_equal "PONG", @redis.call("PING")
  end

  def test_a_database_number_in_the_url_is_selected
    other = Mallard::Probe::RedisConnection.new(@url.sub(%r{/0\z}, "/3"))
    other.call("SET", "where", "db3")

    assert_nil @redis.call("GET", "where")
    assert_equal "db3", redis_call(@url.sub(%r{/0\z}, "/3"), "GET", "where")
  ensure
    other&.close
  end

  def test_a_redis_that_is_gone_is_a_failure_not_a_hang
    gone = Mallard::Probe::RedisConnection.new("redis://127.0.0.1:#{Mallard::Target::FreePort.pick}/0")

    refute gone.answers?
    assert_raises(Mallard::Probe::RedisConnection::Failed) { gone.call("PING") }
  end

  def test_a_unix_socket_url_reaches_a_redis_listening_there
    Dir.mktmpdir("mallard-redis") do |dir|
      socket = File.join(dir, "redis.sock")
      pid = Process.spawn("redis-server", "--port", "0", "--unixsocket", socket, "--save", "", "--appendonly", "no",
                          out: File::NULL, err: File::NULL)
      (@redis_pids ||= []) << pid
      unix = Mallard::Probe::RedisConnection.new("unix://#{socket}?db=1")
      wait_for(timeout: 10) { unix.answers? }
      unix.call("SET", "via", "socket")

      db0 = Mallard::Probe::RedisConnection.new("unix://#{socket}")

      assert_equal "socket", unix.call("GET", "via")
      assert_nil db0.call("GET", "via"), "?db=1 selects database 1"
    ensure
      [unix, db0].each { |connection| connection&.close }
    end
  end

  def test_only_a_local_redis_is_accepted
    assert_raises(Mallard::UsageError) { Mallard::Probe::RedisConnection.parse("redis://10.0.0.5:6379/0") }
    assert_raises(Mallard::UsageError) { Mallard::Probe::RedisConnection.parse("http://127.0.0.1/") }
    assert_equal({ path: "/tmp/r.sock", db: 2 }, Mallard::Probe::RedisConnection.parse("unix:///tmp/r.sock?db=2"))
    assert_equal({ host: "localhost", port: 6379, db: 1 }, Mallard::Probe::RedisConnection.parse("redis://localhost/1"))
  end
end

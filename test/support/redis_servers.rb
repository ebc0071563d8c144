# frozen_string_literal: true

require "socket"

# A redis-server of the test's own, started the way TESTING.md says (in the foreground, in memory only, on a
# free 127.0.0.1 port) and stopped at teardown: an independent Redis for checking what mallard read or left.
module RedisServers
  def teardown
    Array(@redis_pids).each { |pid| stop_process(pid) }
    super
  end

  # @return [String] its URL
  def start_redis
    unless system("command -v redis-server >/dev/null")
      skip "redis-server is not installed (apt-get install redis-server)"
    end

    port = Mallard::Target::FreePort.pick
    pid = Process.spawn("redis-server", "--port", port.to_s, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                        out: File::NULL, err: File::NULL)
    (@redis_pids ||= []) << pid
    url = "redis://127.0.0.1:#{port}/0"
    wait_for(timeout: 10, message: "redis-server never answered") { Mallard::Probe::RedisConnection.new(url).answers? }
    url
  end

  def redis_call(url, *command)
    connection = Mallard::Probe::RedisConnection.new(url)
    connection.call(*command)
  ensure
    connection&.close
  end
end

# frozen_string_literal: true

module Mallard
  module Target
    # The Redis a job worker is measured against: mallard's own redis-server on a free 127.0.0.1 port, in
    # memory only (no RDB, no AOF: nothing written beside the run, and no fork for a snapshot that would
    # compete with the worker for the CPU), started through the Lifeline like every child, and stopped with
    # the run. Or, with --redis URL, an existing one that mallard only reads and never clears.
    class RedisServer
      EXECUTABLE = "redis-server"
      BOOT_TIMEOUT = 10

      attr_reader :url

      # An existing Redis: nothing to start or stop.
      class Existing
        attr_reader :url

        def initialize(url)
          Probe::RedisConnection.parse(url) # refuses a URL mallard may not use, before anything starts
          @url = url
        end

        def own? = false
        def start(_run_dir) = self
        def stop = nil
        def describe = "Redis at #{Text.scrub(@url)}"
      end

      # @raise [NotFound] redis-server is not installed, with the package that brings it
      def self.check_installed!
        return if SearchPath.include?(EXECUTABLE)

        raise NotFound, "#{EXECUTABLE} is not installed: a job worker needs a Redis of its own " \
                        "(Debian/Ubuntu: apt-get install redis-server; or give --redis URL)"
      end

      def own? = true
      def describe = "mallard's own redis-server"

      # @raise [SubjectFailed] it did not come up, with its last lines of output
      def start(run_dir)
        port = FreePort.pick
        @url = "redis://127.0.0.1:#{port}/0"
        @process = Command.new([EXECUTABLE, "--port", port.to_s, "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", run_dir.path, "--protected-mode", "yes"],
                               log_path: run_dir.file("redis.log"), env: { "LD_PRELOAD" => nil })
        connection = Probe::RedisConnection.new(@url)
        @process.start.wait_until_up(timeout: BOOT_TIMEOUT, waiting_for: -> { "no answer at #{@url}" }) do
          connection.answers?
        end
        self
      ensure
        connection&.close
      end

      def alive? = @process.nil? || @process.alive?

      def stop
        @process&.stop
      end
    end
  end
end

# frozen_string_literal: true

require "io/wait"
require "socket"
require "uri"

module Mallard
  module Probe
    # A minimal Redis client (RESP2 over TCP or a unix socket) for reading a job worker's queues from outside.
    # mallard reads a handful of keys once per interval; the redis gem would be a run-time dependency of mallard
    # itself, and its version would have to suit every Sidekiq the subject might bring.
    class RedisConnection
      # A Redis that does not answer within this is as good as gone for a sampler ticking every half second.
      TIMEOUT = 2.0
      LOCAL_HOSTS = %w[127.0.0.1 localhost ::1].freeze

      # Redis answered with an error, or not at all.
      class Failed < Error; end

      # @param url [String] redis://127.0.0.1:PORT/DB or unix:///path/to/socket?db=N (Sidekiq's forms)
      # @raise [UsageError] a URL mallard cannot or may not use
      def self.parse(url)
        uri = URI.parse(url)
        case uri.scheme
        when "unix" then { path: uri.path, db: uri.query.to_s[/(?:\A|&)db=(\d+)/, 1].to_i }
        when "redis" then tcp(uri)
        else raise UsageError, "--redis must be redis://127.0.0.1:PORT/DB or unix:///PATH, not #{url}"
        end
      rescue URI::Error
        raise UsageError, "--redis #{url} is not a URL (e.g. redis://127.0.0.1:6379/0)"
      end

      def self.tcp(uri)
        unless LOCAL_HOSTS.include?(uri.hostname.to_s.downcase)
          raise UsageError, "mallard uses only a Redis on 127.0.0.1 or a unix socket, not #{uri.hostname}"
        end

        { host: uri.hostname, port: uri.port || 6379, db: uri.path.to_s.delete_prefix("/").to_i }
      end

      attr_reader :url

      def initialize(url)
        @url = url
        @address = self.class.parse(url)
      end

      # @return [Object] the reply: Integer, String, nil or Array
      # @raise [Failed] an error reply, a timeout or a broken connection (the connection is then reopened on
      #   the next call)
      def call(*command)
        exchange([command]).first
      end

      # Several commands in one round trip.
      # @return [Array] their replies, in order
      def pipelined(commands)
        exchange(commands)
      end

      def answers?
        call("PING") == "PONG"
      rescue Failed
        false
      end

      def close
        @socket&.close
      rescue IOError
        nil
      ensure
        @socket = nil
      end

      private

      # A failure part-way leaves replies unread: the connection is closed so that none is taken for the next.
      def exchange(commands)
        socket.write(commands.map { |command| encode(command) }.join)
        commands.map { reply }
      rescue SystemCallError, IOError => e # EOFError included
        close
        raise Failed, "Redis at #{@url} did not answer (#{e.message})"
      rescue Failed
        close
        raise
      end

      def socket
        return @socket if @socket

        @buffer = +"".b
        @socket = open
        select_db
        @socket
      end

      def open
        return UNIXSocket.new(@address[:path]) if @address[:path]

        Socket.tcp(@address[:host], @address[:port], connect_timeout: TIMEOUT)
      end

      def select_db
        return if @address[:db].zero?

        @socket.write(encode(["SELECT", @address[:db]]))
        reply
      end

      def encode(command)
        parts = command.map { |part| part.to_s.b }
        "*#{parts.size}\r\n#{parts.map { |part| "$#{part.bytesize}\r\n#{part}\r\n" }.join}"
      end

      def reply
        line = read_line
        case line[0]
        when "+" then line[1..]
        when "-" then raise Failed, "Redis at #{@url} answered: #{Text.scrub(line[1..])}"
        when ":" then Integer(line[1..])
        when "$" then bulk(Integer(line[1..]))
        when "*" then (count = Integer(line[1..])).negative? ? nil : Array.new(count) { reply }
        else raise Failed, "Redis at #{@url} sent something that is not RESP: #{Text.printable(line[0, 40])}"
        end
      end

      def bulk(size)
        return if size.negative?

        fill(size + 2)
        @buffer.slice!(0, size + 2)[0, size]
      end

      def read_line
        fill(@buffer.bytesize + 1) until (ending = @buffer.index("\r\n"))
        @buffer.slice!(0, ending + 2)[0, ending]
      end

      # Reads until the buffer holds at least `bytes`, each read within the timeout.
      def fill(bytes)
        while @buffer.bytesize < bytes
          raise IOError, "timed out after #{TIMEOUT} s" unless @socket.wait_readable(TIMEOUT)

          @buffer << @socket.readpartial(65_536)
        end
      end
    end
  end
end

# frozen_string_literal: true

require "io/wait"
require "socket"

module Mallard
  module Exporter
    # The smallest HTTP server Prometheus needs: GET /metrics, one connection at a time, answered and closed.
    # It runs on the exporter's own thread and its own port, never the app's, and gives up on a client that has
    # not sent its request within READ_TIMEOUT, so a stuck connection cannot hold the endpoint.
    class Server
      READ_TIMEOUT = 2.0
      MAX_REQUEST = 16 * 1024
      PATHS = ["/metrics", "/metrics/"].freeze

      attr_reader :port

      # @param body [#call] given the request's Accept header, returns [content type, body]
      def initialize(host, port, &body)
        @socket = TCPServer.new(host, port)
        @port = @socket.addr[1]
        @body = body
      end

      def to_io = @socket

      # Serves a connection waiting to be accepted, if there is one.
      def serve_pending
        client = @socket.accept_nonblock(exception: false)
        return if client == :wait_readable

        begin
          answer(client)
        ensure
          client.close
        end
      end

      def close
        @socket.close unless @socket.closed?
      end

      private

      def answer(client)
        request = read_request(client)
        return unless request

        method, path = request.lines.first.to_s.split
        accept = request[/^accept:[ \t]*(.*?)\r?$/i, 1].to_s
        client.write(response(method, path, accept))
      rescue SystemCallError, IOError
        nil # the client went away
      end

      def response(method, path, accept)
        return reply("405 Method Not Allowed", "text/plain", "GET /metrics only\n") unless method == "GET"
        return reply("404 Not Found", "text/plain", "metrics are at /metrics\n") unless PATHS.include?(path.to_s)

        content_type, body = @body.call(accept)
        reply("200 OK", content_type, body)
      rescue StandardError => e
        reply("500 Internal Server Error", "text/plain", "mallard exporter: #{e.class}: #{e.message}\n")
      end

      def reply(status, content_type, body)
        "HTTP/1.1 #{status}\r\nContent-Type: #{content_type}\r\nContent-Length: #{body.bytesize}\r\n" \
          "Connection: close\r\n\r\n#{body}"
      end

      # Up to the blank line that ends the headers; nil when the client is too slow or sends too much.
      def read_request(client)
        request = +""
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + READ_TIMEOUT
        until request.include?("\r\n\r\n") || request.include?("\n\n")
          left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
          return if left <= 0 || request.bytesize > MAX_REQUEST

          chunk = client.read_nonblock(4096, exception: false)
          return if chunk.nil?

          chunk == :wait_readable ? client.wait_readable(left) : request << chunk
        end
        request
      end
    end
  end
end

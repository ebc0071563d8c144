# frozen_string_literal: true

require "socket"

module Mallard
  module Target
    # A TCP port on 127.0.0.1 that nothing listens on right now (the OS picks it).
    module FreePort
      def self.pick
        server = TCPServer.new("127.0.0.1", 0)
        server.addr[1]
      ensure
        server&.close
      end
    end
  end
end

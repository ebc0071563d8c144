# frozen_string_literal: true

module Mallard
  module Exporter
    # Where the endpoint listens and how often each process writes its readings, from the environment:
    # MALLARD_METRICS=HOST:PORT (or PORT, or "off"), MALLARD_METRICS_INTERVAL=SECONDS. Loopback unless told
    # otherwise: the endpoint names processes, pids and libraries, which is nobody else's business by default.
    Settings = Struct.new(:host, :port, :interval, keyword_init: true) do
      self::DEFAULT_HOST = "127.0.0.1"
      self::DEFAULT_PORT = 9394
      self::DEFAULT_INTERVAL = 5.0
      self::VARIABLE = "MALLARD_METRICS"

      # @return [Settings, nil] nil when MALLARD_METRICS is "off"
      # @raise [ArgumentError] on a value that names no port
      def self.from_env(env)
        value = env[self::VARIABLE].to_s.strip
        return if value == "off"

        host, port = split(value)
        new(host: host, port: port, interval: interval_from(env["MALLARD_METRICS_INTERVAL"]))
      end

      def self.split(value)
        return [self::DEFAULT_HOST, self::DEFAULT_PORT] if value.empty?

        host, _, port = value.rpartition(":")
        host = host.delete_prefix("[").delete_suffix("]") # [::1]:9394
        number = Integer(port, 10, exception: false)
        unless number&.between?(0, 65_535)
          raise ArgumentError, "#{self::VARIABLE}=#{value} names no port; give HOST:PORT, PORT or off"
        end

        [host.empty? ? self::DEFAULT_HOST : host, number]
      end

      def self.interval_from(value)
        seconds = Float(value, exception: false)
        seconds&.positive? ? seconds : self::DEFAULT_INTERVAL
      end

      def loopback?
        host == "localhost" || host.start_with?("127.") || host == "::1"
      end

      def url(bound_port = port)
        "http://#{host.include?(':') ? "[#{host}]" : host}:#{bound_port}/metrics"
      end
    end
  end
end

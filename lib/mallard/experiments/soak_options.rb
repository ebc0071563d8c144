# frozen_string_literal: true

module Mallard
  module Experiments
    # How a soak runs: load shape, sampling, limits. Defaults finish in well under a minute.
    SoakOptions = Struct.new(:duration, :requests, :concurrency, :paths, :interval, :boot_timeout,
                             :allocator, :ruby_client, keyword_init: true) do
      def self.defaults
        new(duration: 20.0, requests: nil, concurrency: 10, paths: ["/"], interval: 0.5, boot_timeout: 60.0,
            allocator: nil, ruby_client: false)
      end

      def validate!
        raise UsageError, "--duration must be positive" unless duration.positive?
        raise UsageError, "--concurrency must be at least 1" unless concurrency >= 1
        raise UsageError, "--interval must be at least 0.05 s" unless interval >= 0.05
        raise UsageError, "--requests must be at least 1" if requests && requests < 1

        return self if paths.all? { |path| path.start_with?("/") }

        raise UsageError, "request paths must start with /: #{paths.join(' ')}"
      end
    end
  end
end

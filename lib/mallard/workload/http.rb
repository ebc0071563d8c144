# frozen_string_literal: true

module Mallard
  module Workload
    # A server's work: external HTTP load (wrk, or the built-in client) for a duration or a request count.
    # Done when the load tool is; its result goes to load.json, and stopping part-way keeps what it counted.
    class Http
      def initialize(url:, options:, run_dir:)
        @url = url
        @options = options
        @run_dir = run_dir
      end

      def description
        return "wrk" if driver.is_a?(Probe::Wrk)

        reason = @options.ruby_client ? "--ruby-client" : "wrk not found"
        "mallard's built-in client (#{reason}). #{Probe::Load.fallback_note}"
      end

      def duration = @options.load_seconds

      def start(_subject) = driver.start

      # @param subject [Target::Command]
      def running?(subject)
        raise SubjectDied unless subject.alive?

        driver.running?
      end

      def finish(_subject, _phases)
        @stopped = true
        save
      end

      # Part-way: stop the load and keep its figures, marked as interrupted.
      def stop
        return if @driver.nil? || @stopped

        @stopped = true
        @driver.stop
        save
      end

      # Before its time, as planned (a soak that has decided): the load's figures are whole, not interrupted.
      def end_now
        return if @driver.nil? || @stopped

        @driver.stop(planned: true)
      end

      private

      def driver
        @driver ||= Probe::Load.driver(url: @url, paths: @options.paths, duration: @options.load_seconds,
                                       requests: @options.requests, concurrency: @options.concurrency,
                                       log_path: @run_dir.file("load.log"), force_ruby: @options.ruby_client,
                                       **(@options.rate ? { rate: @options.rate } : {}))
      end

      def save
        @run_dir.write_json("load.json", @driver.result.to_h)
      end
    end
  end
end

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

      # Seconds of each step of `--concurrency auto`'s ramp: long enough for a few hundred requests of a Rails page,
      # short enough that a ramp to the knee (four or five steps) takes under half a minute.
      RAMP_STEP_S = 3

      def description
        return "wrk#{ramped}#{reconnecting}" if driver.is_a?(Probe::Wrk)

        reason = @options.ruby_client ? "--ruby-client" : "wrk not found"
        "mallard's built-in client (#{reason})#{ramped}#{reconnecting}. #{Probe::Load.fallback_note}"
      end

      def duration = @options.load_seconds

      # Before the measured load: `--concurrency auto` ramps connections 1, 2, 4, … in short loads until throughput
      # stops growing or latency or errors say the app is saturated (Analysis::ConcurrencyChoice), and loads with
      # the choice. The ramp's steps go to ramp.json; the sampler does not record them.
      def prepare(subject)
        return unless @options.concurrency == "auto"

        steps = []
        loop do
          raise SubjectDied unless subject.alive?

          steps << step(steps.empty? ? 1 : steps.last.concurrency * 2)
          break unless Analysis::ConcurrencyChoice.go_on?(ramp(steps))
        end
        @run_dir.write_json("ramp.json", ramp(steps).to_h)
        @concurrency = Analysis::ConcurrencyChoice.call(ramp(steps)).chosen || 1
      end

      def start(_subject) = driver.start

      # @param subject [Target::Command]
      def running?(subject)
        raise SubjectDied unless subject.alive?

        driver.running?
      end

      # @return [Run::Phases] as they were: the load's figures are its own file
      def finish(_subject, phases)
        @stopped = true
        save
        phases
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

      def ramped = @concurrency ? " at #{@concurrency} connections (--concurrency auto)" : ""

      def reconnecting = @options.reconnect ? ", every request on a new connection" : ""

      def ramp(steps) = Run::Ramp.new(step_s: RAMP_STEP_S, timeout_s: Probe::Wrk::REQUEST_TIMEOUT, steps: steps)

      def step(concurrency)
        load = Probe::Load.driver(url: @url, paths: @options.paths, duration: RAMP_STEP_S, concurrency: concurrency,
                                  log_path: @run_dir.file("ramp-#{concurrency}.log"), force_ruby: @options.ruby_client,
                                  reconnect: @options.reconnect == true)
        load.start
        result = load.result
        Run::RampStep.new(concurrency: concurrency, requests: result.requests, rps: result.rps.round(1),
                          p99_ms: result.latency_ms[:p99], errors: result.errors_total,
                          duration_s: result.duration_s.round(2))
      ensure
        load&.stop # a signal mid-step: the step's load ends with it
      end

      def driver
        @driver ||= Probe::Load.driver(url: @url, paths: @options.paths, duration: @options.load_seconds,
                                       requests: @options.requests, concurrency: @concurrency || @options.concurrency,
                                       log_path: @run_dir.file("load.log"), force_ruby: @options.ruby_client,
                                       reconnect: @options.reconnect == true,
                                       **(@options.rate ? { rate: @options.rate } : {}))
      end

      def save
        @run_dir.write_json("load.json", @driver.result.to_h)
      end
    end
  end
end

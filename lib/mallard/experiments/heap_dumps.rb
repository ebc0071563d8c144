# frozen_string_literal: true

require "fileutils"
require_relative "../agent/switches"
require_relative "heap_probe"

module Mallard
  module Experiments
    # `mallard heap`'s schedule, run by the soak each tick (Experiments::Soak's ticker): three dump requests,
    # answered by the agent (Agent::HeapDumper), and mallard's own requests to the app timed meanwhile
    # (HeapProbe).
    #
    # A dump is requested at its quarter of the load (a quarter, half and three quarters in), but never before the
    # one ahead of it has been written: a fast leak makes big dumps that take seconds each, and two forks writing
    # at once would double the app's copy-on-write memory and slow both. Whatever is left when the load ends is
    # requested then, one after another, and the run waits for it while the app is still up — at most
    # PICKUP_TIMEOUT for the app to take a request and DUMP_TIMEOUT for each dump to be written. What happened is
    # recorded in the run directory (Run::HeapReader::SCHEDULE).
    class HeapDumps
      FRACTIONS = [0.25, 0.5, 0.75].freeze
      # The agent polls every Agent::HeapDumper::POLL; a minor GC and a fork follow: an app that has not taken a
      # request after this long never saw it.
      PICKUP_TIMEOUT = 15
      DUMP_TIMEOUT = 120

      # @param url [#call] the app's URL once it is up (nil: not an HTTP target, no latency)
      # @param path [String] the path the load requests first (--path), which the probe requests too
      # @param user [Target::SubjectUser, Target::SubjectUser::Same] who the app runs as: heap/ is theirs
      # @param notice [#call] tells the user, in a line, that the run waits for its dumps
      # @param timeouts [Array(Numeric, Numeric)] PICKUP_TIMEOUT and DUMP_TIMEOUT unless given
      def initialize(run_dir:, duration:, url: nil, path: "/", user: Target::SubjectUser::Same, notice: nil,
                     timeouts: [PICKUP_TIMEOUT, DUMP_TIMEOUT])
        @run_dir = run_dir
        @pickup_timeout, @dump_timeout = timeouts
        @dir = run_dir.file(Run::HeapReader::DIRECTORY)
        FileUtils.mkdir_p(@dir, mode: 0o700)
        user.give(@dir) # the app reads the requests and writes the dumps; nothing else of the run is opened to it
        @times = FRACTIONS.map { |fraction| fraction * duration }
        @url = url
        @path = path
        @notice = notice
        @requests = []
      end

      def env = { Agent::Switches::HEAP_DIR => @dir }

      # @param elapsed [Float] seconds since load began
      def tick(elapsed)
        @load_started ||= Clock.monotonic - elapsed
        start_probe
        check_current
        number = @requests.size + 1
        request(number) if number <= @times.size && elapsed >= @times[number - 1] && ready_for_next?
      end

      # The load has ended, the app is still up: the dumps not yet requested are requested now, and waited for.
      def after_load
        @load_started ||= Clock.monotonic
        @load_ended = now
        @probe_records = @probe&.stop&.records
        started = Clock.monotonic
        @notice&.call(waiting_line) unless finished?
        until finished?
          request(@requests.size + 1) if ready_for_next?
          sleep 0.1
          check_current
        end
        @waited = Clock.monotonic - started
      end

      # Writes what happened to the run directory (also for a run that was stopped part-way).
      def record
        @probe_records ||= @probe&.stop&.records
        record = { "requests" => @requests, "load_ended_t" => @load_ended&.round(3), "waited_s" => @waited&.round(3),
                   "gave_up" => @gave_up, "probe_path" => (@path if @url), "probes" => @probe_records || [],
                   "pickup_timeout_s" => @pickup_timeout, "dump_timeout_s" => @dump_timeout }
        @run_dir.write_json(Run::HeapReader::SCHEDULE, record)
      end

      private

      def now = Clock.monotonic - @load_started

      def start_probe
        return if @probe || @url.nil? || (url = @url.call).nil?

        @probe = HeapProbe.new(URI.join(url, @path).to_s, method(:now))
      end

      def request(number)
        File.write(File.join(@dir, "request-#{number}"), "")
        @requests << { "number" => number, "requested_t" => now.round(3) }
      end

      def finished? = !@gave_up.nil? || (@requests.size == @times.size && ended?(@requests.last))

      def ready_for_next? = @gave_up.nil? && (@requests.empty? || ended?(@requests.last))

      def ended?(request) = request.key?("ended_t")

      # Notes when the newest request was taken and written, and gives up on one that takes too long.
      def check_current
        current = @requests.last
        return if current.nil? || ended?(current)

        number = current["number"]
        current["picked_up_t"] ||= now.round(3) if files(number, "json").any?
        written = files(number, "done").any?
        current["written"] = written
        current["ended_t"] = now.round(3) if written || files(number, "failed").any?
        give_up(current) unless ended?(current)
      end

      def give_up(current)
        waited = now - current["requested_t"]
        if current["picked_up_t"].nil? && waited > @pickup_timeout
          @gave_up = "the app did not take dump request #{current['number']} within #{@pickup_timeout} s (its " \
                     "agent polls #{@dir}: can the app's user read it?)"
        elsif waited > @dump_timeout
          @gave_up = "dump #{current['number']} was still being written #{@dump_timeout} s after it was requested"
        end
      end

      def files(number, extensions)
        Dir.glob(File.join(@dir, "heap-*-#{number}.#{extensions}"))
      end

      def waiting_line
        left = (@requests.size + 1..@times.size).map { |number| "ABC"[number - 1] }
        pending = @requests.reject { |request| ended?(request) }.map { |request| "ABC"[request["number"] - 1] }
        "mallard: the load has ended; waiting for heap dump#{'s' if (pending + left).size > 1} " \
          "#{(pending + left).join(', ')} (each at most #{@pickup_timeout} s to start, #{@dump_timeout} s to write)"
      end
    end
  end
end

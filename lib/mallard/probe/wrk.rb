# frozen_string_literal: true

require "io/wait"
require "json"
require_relative "../errors"
require_relative "load_result"
require_relative "load_settings"
require_relative "../clock"
require_relative "../process_status"
require_relative "../text"
require_relative "../lifeline"
require_relative "../search_path"

module Mallard
  module Probe
    # Drives load with wrk, in its own process group so it never competes with mallard for a
    # signal, and reads the result from the one line wrk.lua prints when wrk ends.
    #
    # wrk 4.1 ends only when its -d sleep runs out or on SIGINT (it then still prints its summary
    # and calls done()). A request cap therefore takes two steps: each wrk thread stops itself at
    # its share and says so on stdout, and a watcher thread here, reading that output as it comes,
    # sends SIGINT once every thread has. That is also why wrk's output goes through a pipe: the
    # watcher copies it to the log, so the log still holds everything wrk said.
    class Wrk
      include LoadSettings
      EXECUTABLE = "wrk"
      SCRIPT = File.expand_path("wrk.lua", __dir__)
      JSON_PREFIX = "MALLARD_JSON "
      CAPPED = /^MALLARD_CAPPED /
      REQUEST_TIMEOUT = 5
      STOP_GRACE = 3
      # How often #stop and the watcher re-check whether wrk can take SIGINT yet.
      SIGNAL_EVERY = 0.1
      TAIL_LINES = 20

      attr_reader :url, :paths, :duration, :requests, :concurrency, :threads, :log_path, :pid, :rate

      def self.available?
        SearchPath.include?(EXECUTABLE)
      end

      # @param duration [Numeric] seconds; wrk counts whole seconds, so it is rounded up
      # @param requests [Integer, nil] stop after this many responses (a few more may complete)
      # @param threads [Integer, nil] wrk's -t; the default keeps every connection (wrk gives each
      #   thread concurrency / threads connections and drops the remainder)
      # @param timeout [Numeric] seconds before wrk counts a request as timed out
      # @param rate [Numeric, nil] open loop: requests a second in all (wrk.lua paces them); nil: closed loop
      # @param reconnect [Boolean] every request on a new connection (Connection: close; wrk reconnects when the
      #   server closes): a preforking server's workers then each accept their share, where keep-alive connections
      #   stay with the worker that accepted them in the burst at the start
      def initialize(url:, duration:, log_path:, paths: ["/"], requests: nil, concurrency: 10, threads: nil,
                     timeout: REQUEST_TIMEOUT, rate: nil, reconnect: false)
        @url = url
        @reconnect = reconnect
        @rate = rate && positive(rate, "rate")
        @paths = checked_paths(paths)
        @duration = positive(duration, "duration")
        @requests = requests && Integer(positive(requests, "requests"))
        @concurrency = Integer(positive(concurrency, "concurrency"))
        @threads = thread_count(threads)
        @timeout = positive(timeout, "timeout")
        @log_path = log_path
        @output = +""
        @capped_threads = 0
      end

      def start
        raise Error, "wrk was already started" if @pid

        reader, writer = IO.pipe
        @log = File.open(@log_path, "w", 0o600)
        @pid = Lifeline.spawn(environment, *argv, in: File::NULL, out: writer, err: writer) # ends with mallard
        @watcher = Thread.new { watch(reader) }
        @watcher.report_on_exception = false # #wait re-raises it
        self
      rescue StandardError => e
        [reader, @log].each { |io| io&.close }
        raise e unless e.is_a?(SystemCallError)

        raise Error, "cannot start wrk: #{e.message}"
      ensure
        writer&.close
      end

      def running?
        @watcher ? @watcher.alive? : false
      end

      # @return [Boolean] whether wrk has ended (true also when it was never started)
      def wait(timeout = nil)
        return true unless @watcher

        !@watcher.join(timeout).nil?
      end

      # Asks wrk to end now (it still reports what it did), then kills it after the grace period. planned: the load
      # ends early by design (a soak that decided), so its figures are not marked interrupted.
      def stop(grace: STOP_GRACE, planned: false)
        return self unless running?

        @interrupted = true unless @capped || planned
        deadline = Clock.monotonic + grace
        loop do
          interrupt
          return self if wait(SIGNAL_EVERY)
          break if Clock.monotonic > deadline
        end
        signal("KILL")
        wait
        self
      end

      # Waits for wrk to end, then reads its report.
      # @return [LoadResult]
      def result
        raise Error, "wrk was not started" unless @pid

        wait
        line = @output.lines.reverse.find { |each| each.start_with?(JSON_PREFIX) }
        raise Error, "wrk reported no result (#{ProcessStatus.describe(@status)}); its last lines:\n#{tail}" unless line

        parse(JSON.parse(line.delete_prefix(JSON_PREFIX)))
      end

      def argv
        [EXECUTABLE, "--latency", "-d", "#{@duration.ceil}s", "-c", @concurrency.to_s, "-t", @threads.to_s,
         "--timeout", "#{@timeout.ceil}s", *(["-H", "Connection: close"] if @reconnect), "-s", SCRIPT, @url]
      end

      def environment
        { "MALLARD_PATHS" => @paths.join("\n"), "MALLARD_REQUESTS" => @requests&.to_s,
          "MALLARD_THREADS" => @threads.to_s, "MALLARD_RATE" => @rate&.to_s }
      end

      private

      def interrupted?
        @interrupted ? true : false
      end

      def thread_count(requested)
        count = requested || (@concurrency >= 2 && @concurrency.even? ? 2 : 1)
        count = Integer(count).clamp(1, @concurrency) # wrk refuses fewer connections than threads
        # A thread can only stop itself after a response, so each needs a share of at least one.
        @requests ? [count, @requests].min : count
      end

      # Copies wrk's output to the log as it comes, interrupts wrk once every thread has reached
      # its share of the cap, and reaps wrk when its output ends.
      def watch(reader)
        loop do
          interrupt if @capped
          next unless reader.wait_readable(SIGNAL_EVERY)

          chunk = reader.read_nonblock(4096, exception: false)
          break if chunk.nil?

          record(chunk) if chunk.is_a?(String)
        end
        @status = Process.wait2(@pid).last
        Lifeline.release(@pid)
      ensure
        reader.close
        close_log
      end

      def record(chunk)
        copy_to_log(chunk)
        @output << chunk
        @capped = true if @requests && @output.scan(CAPPED).size >= @threads
      end

      # The log is the user's copy; the figures are parsed from memory, so a disk that fills up must not stop
      # the load. The run directory's own writes report that.
      def copy_to_log(chunk)
        return if @log_failed

        @log.write(chunk)
        @log.flush
      rescue SystemCallError
        @log_failed = true
      end

      def close_log
        @log.close
      rescue SystemCallError
        nil
      end

      def parse(data)
        latency = data.fetch("latency_us")
        LoadResult.build(
          tool: "wrk", requests: data.fetch("requests"), duration_s: data.fetch("duration_us") / 1_000_000.0,
          errors: data.fetch("errors").transform_keys(&:to_sym),
          latency_ms: { p50: latency["50"], p90: latency["90"], p99: latency["99"], max: latency["max"],
                        mean: latency["mean"] }.transform_values { |us| us / 1000.0 },
          status_codes: data.fetch("status_codes"), interrupted: interrupted?, pacing: pacing(data["pacing"])
        )
      end

      def pacing(data)
        return {} unless @rate && data

        { target_rate: @rate, late: data.fetch("late"), max_late_ms: data.fetch("max_late_us") / 1000.0 }
      end

      # SIGINT means "stop and report" only once wrk has installed its handler, after starting its
      # threads: before that it either kills wrk (default action) or is ignored. So it is sent only
      # when /proc shows the handler, and callers repeat it until wrk ends.
      def interrupt
        caught = File.read("/proc/#{@pid}/status")[/^SigCgt:\s*(\h+)/, 1]
        signal("INT") if caught.nil? || caught.hex[Signal.list.fetch("INT") - 1] == 1
      rescue SystemCallError
        signal("INT")
      end

      def signal(name)
        Process.kill(name, -@pid)
      rescue Errno::ESRCH, Errno::EPERM
        nil
      end

      # Goes into an error message, and from there into meta.json and the terminal: scrubbed, as wrk
      # (or a Lua error quoting a request path) may print any bytes.
      def tail
        Text.scrub(@output.lines.last(TAIL_LINES).join)
      end
    end
  end
end

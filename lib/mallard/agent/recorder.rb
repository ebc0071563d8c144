# frozen_string_literal: true

require_relative "gc_snapshot"
require_relative "record_line"

module Mallard
  module Agent
    # Collects per-request figures from any number of app threads and appends one JSON line per interval to the
    # agent file. Each line is a single write to a file opened with O_APPEND, so the lines of several processes
    # (Puma workers) never interleave.
    #
    # Who writes: the app thread whose request ends when an interval is due, and a background thread only when no
    # request came for a while (an idle or booting process, a job worker between long jobs). On Ruby 3.1 a thread
    # of the agent's own doing a millisecond of work while the app's threads were busy could leave Puma's main
    # thread woken on every GVL hand-over for seconds (bench/README.md): the ledger's reading, taken every 2 s on
    # the background thread, cost the demo app 7% of its CPU per request. An app thread doing the same work is just
    # a slower request.
    class Recorder
      # Per interval, the units a record holds at most: a job worker's jobs, and a web app's measured requests when
      # its rate jumps past what the previous interval's pace (MEASURED_PER_INTERVAL) expected. Few enough that the
      # interval's line stays small. At 500 (a 10 KB line twice a second) the agent cost the allocation-bound demo
      # app 12% of its CPU per request, and at 100 nothing detectable, though the work per line is a millisecond
      # at most: building the line without writing it cost 4%, writing it in chunks between Thread.pass no less,
      # and integer text no less (bench/agent_paired.rb, bench/README.md).
      SAMPLE_CAP = 100
      # How many of an interval's requests are measured once more come: a random sample of about this many, at the
      # previous interval's rate; the rest are only counted. Measuring one (clocks, the body's wrapper, the record)
      # takes about 2 µs of CPU by itself, but side by side it cost a busy Rails app's 0.8 ms page (its 404 page,
      # which the benchmark loaded by mistake) 53 µs (6.2%), for a cause not found; the middleware in place doing
      # nothing cost nothing measurable. Sampled, the recording cost it 2.1%; half as many (25) did not measure
      # cheaper (bench/README.md, "A sample of requests measured"). Fifty a 0.5 s interval is
      # 6,000 a minute, plenty for the percentiles a soak reports, and a sample drawn at random, whatever the
      # request, has the whole stream's distribution.
      MEASURED_PER_INTERVAL = 50
      # in_app_ms, body_ms, chunks, queue_ms: kept in one flat array so recording a request allocates nothing.
      FIELDS = 4
      # At exit, how long to wait for the thread to finish a write it has already begun.
      JOIN_TIMEOUT = 2
      # How far past due (in intervals) the background thread lets a record be before writing it itself: under
      # load a request writes it within milliseconds of due, so the thread finds nothing to do. An idle process's
      # records come every 1.2 intervals: an idle Puma master's ledger readings must stay close enough together to
      # be joined to the sampler's mappings readings (Analysis::LedgerMappings).
      IDLE_AFTER = 0.2
      # Job classes tallied apart, at most; the rest are counted together under OTHER_CLASSES.
      CLASS_CAP = 50
      OTHER_CLASSES = "(other classes)"
      # The shortest sleep between the thread's looks, should it wake a little before a record is late.
      MIN_WAIT = 0.01

      attr_reader :path, :interval

      # origin: the CLOCK_MONOTONIC value every record's t is measured from (mallard's MALLARD_T0).
      # owner: the mallard process of the run (an Owner); once it is gone nothing more is written.
      # gc_timeline: a GcTimeline or GcProfilerTimeline, whose "gc" line follows each interval's record when there were
      # GCs.
      # jobs: a job worker's recorder, whose units are jobs (JobMiddleware) and whose lines say how many run.
      # ledger: a Ledger, whose "ledger" line follows a record when its coarser interval is due.
      # full_gc: a FullGc, asked before each record whether a full GC is due (its event goes in that record's GCs).
      def initialize(path:, interval: 0.5, origin: Process.clock_gettime(Process::CLOCK_MONOTONIC),
                     sample_cap: SAMPLE_CAP, owner: nil, gc_timeline: nil, jobs: false, ledger: nil, full_gc: nil)
        @path = path
        @ledger = ledger
        @full_gc = full_gc
        @jobs = jobs
        @owner = owner
        @gc_timeline = gc_timeline
        @interval = interval
        @origin = origin
        @sample_cap = sample_cap
        @warned = false
        @running = false
        reset
      end

      # Whether to measure the request now beginning. A request not measured is counted here, as it begins; a
      # measured one when it is recorded. The gap to the next measured request is drawn at random (mean: the
      # stride), so a load that cycles through its paths is not sampled on one of them. Unlocked: under the GVL
      # nothing else runs between reading and writing an instance variable here, and a lost count would be one.
      def measure?
        @countdown -= 1
        if @countdown.positive?
          @requests += 1
          return false
        end

        @countdown = 1 + @random.rand((2 * @stride) - 1)
        true
      end

      # A measured request's path (and every job's): counters and three stores into a preallocated buffer, under the
      # lock. Past sample_cap in one interval it becomes a reservoir sample, so the record still represents the whole
      # interval.
      # queue_ms: a request's wait before the app got it, when its client said when it left (nil otherwise).
      # When the interval's record is due, the thread that recorded last writes it.
      def record(in_app_ms, body_ms, chunks, queue_ms = nil)
        @lock.synchronize do
          @requests += 1
          @failures += 1 if @jobs && chunks == 1 # a job's third column is whether it raised
          @seen += 1
          slot = @seen <= @sample_cap ? @seen - 1 : @random.rand(@seen)
          store(slot * FIELDS, in_app_ms, body_ms, chunks, queue_ms) if slot < @sample_cap
        end
        flush_when_due(0.0) if @running
      end

      # A job ended (JobMiddleware, ActiveJobHook): recorded as any unit is, its class's tally counted and the class
      # kept in the row's fourth field (a request's queue_ms, which a job has not), as its index in the tally.
      def record_job(job_ms, queue_ms, failed, job_class)
        index = @lock.synchronize { tally(job_class.to_s, job_ms, failed) }
        record(job_ms, queue_ms, failed, index)
      end

      # A job began (JobMiddleware); it is recorded when it ends, and counts as busy meanwhile.
      def job_started
        @lock.synchronize { @started += 1 }
      end

      def start
        return self if @running

        @running = true
        @thread = Thread.new { run }
        @thread.name = "mallard-agent"
        @thread.report_on_exception = false
        # Puma (with preload) and Rails list threads started at boot as fork hazards unless so marked;
        # this one is restarted in every child by the fork hook.
        @thread.thread_variable_set(:fork_safe, true)
        self
      rescue ThreadError => e
        warn_once(e)
        self
      end

      # Stops the thread and writes the final record. Called at exit; never raises.
      def stop
        return unless @running

        @running = false
        @lock.synchronize do
          @stopping = true
          @wake.signal
        end
        @thread&.join(JOIN_TIMEOUT)
        @flushing.synchronize { flush }
      rescue StandardError => e
        warn_once(e)
      end

      # In a forked child: the thread did not survive fork and the counters belong to the parent.
      # The same object is reset (not replaced) because a middleware built before fork holds it.
      def after_fork
        was_running = @running
        @running = false
        @thread = nil
        reset
        @owner&.after_fork
        @gc_timeline&.after_fork
        @ledger&.after_fork
        @full_gc&.after_fork
        start if was_running
      end

      # Drains what was recorded since the previous record into a JSON line (see RecordLine), valid until
      # the next take. The two buffers swap under the lock, so app threads go on recording into one while
      # this reads the other, which nothing writes to until the next take.
      def take
        @taking.synchronize do
          requests, seen, started, failures = @lock.synchronize do
            @buffer, @spare = @spare, @buffer
            taken = [@requests, @seen, @started, @failures]
            RecordLine.job_classes(@classes_text.clear, @classes) if @jobs
            @seen = 0
            pace(@requests)
            taken
          end
          @line.build(time: Process.clock_gettime(Process::CLOCK_MONOTONIC) - @origin, pid: Process.pid,
                      gc_stat: GcSnapshot.take(GC.stat(@stat)), requests: requests, samples: @spare,
                      count: [seen, @sample_cap].min, sampled: seen > @sample_cap,
                      jobs: ([started - requests, failures, @classes_text] if @jobs))
        end
      end

      # The GCs since the previous take_gc, as a "gc" line valid until the next; nil when there were none or
      # there is no timeline.
      def take_gc
        return unless @gc_timeline

        @taking.synchronize do
          @gc_timeline.build(time: Process.clock_gettime(Process::CLOCK_MONOTONIC) - @origin, pid: Process.pid,
                             requests: @requests)
        end
      end

      # Appends the interval's record when it is `late` seconds past due and no other thread is writing one. The
      # second look at the clock is under the lock: the thread that held it may have just written this interval's.
      def flush_when_due(late)
        return unless clock >= @due + late && @flushing.try_lock

        begin
          @running = false if clock >= @due + late && !flush
        ensure
          @flushing.unlock
        end
      end

      # Appends the interval's record, and its GCs', while the run lasts; false once it is over.
      #
      # The interval's lines go out in one write: opening, writing and closing each release the GVL, and in a busy
      # script every release can cost the agent's thread a second before it has the GVL again (a 5 s gap in a
      # 10 s script's ledger when each line was written on its own).
      def flush
        @due = clock + @interval
        return false unless run_going_on?

        @full_gc&.run_if_due(clock)
        @out.clear << take
        gc_line = take_gc
        @out << gc_line if gc_line
        ledger_line = @ledger&.take(Process.clock_gettime(Process::CLOCK_MONOTONIC), requests: @requests)
        @out << ledger_line if ledger_line
        append(@out)
        true
      rescue StandardError => e
        warn_once(e)
        true
      end

      # False once the mallard that started this run is gone: the run's files are final then.
      def run_going_on?
        @owner.nil? || @owner.alive?
      end

      # A line written as it is (Agent::RubyState's), while the run goes on.
      def note(line)
        append(line) if run_going_on?
      rescue StandardError => e
        warn_once(e)
      end

      private

      # The next interval measures about MEASURED_PER_INTERVAL of its requests, if it comes at this one's rate.
      def pace(requests)
        @stride = [(requests - @paced) / MEASURED_PER_INTERVAL, 1].max
        @paced = requests
      end

      # Per job class, cumulative for the process: [index, jobs, failed, job_ms]. The index is the order the class was
      # first seen in, which the line's job_classes keep. Past CLASS_CAP classes the rest share one tally, so an app
      # that makes a class per job cannot grow the line (or the agent's memory) without bound.
      def tally(name, job_ms, failed)
        name = OTHER_CLASSES if @classes.size >= CLASS_CAP && !@classes.key?(name)
        counts = (@classes[name] ||= [@classes.size, 0, 0, 0.0])
        counts[1] += 1
        counts[2] += failed
        counts[3] += job_ms
        counts[0]
      end

      # Element by element: a slice assignment would allocate an array on every request.
      def store(at, in_app_ms, body_ms, chunks, queue_ms)
        @buffer[at] = in_app_ms
        @buffer[at + 1] = body_ms
        @buffer[at + 2] = chunks
        @buffer[at + 3] = queue_ms
      end

      def reset
        @lock = Mutex.new
        @wake = ConditionVariable.new
        @random = Random.new # not Kernel#rand: the app's seeded sequence must not move
        @requests = 0
        @started = 0
        @failures = 0
        @classes = {}
        @classes_text = +"" # the tally's JSON, written under the lock (take), reused as @line is
        @seen = 0
        @paced = 0
        @stride = 1
        @countdown = 1
        # Two buffers for the life of the process, each overwritten every other interval. A fresh array per
        # interval lives long enough (0.5 s of the app's minor GCs) to be promoted, and then waits as old
        # garbage for a major GC: the agent would inflate the very memory it watches (see RecordLine).
        @buffer = Array.new(@sample_cap * FIELDS)
        @spare = Array.new(@sample_cap * FIELDS)
        @taking = Mutex.new
        @line = RecordLine.new(columns: @jobs ? RecordLine::JOB_COLUMNS : RecordLine::REQUEST_COLUMNS)
        @out = +"" # the interval's lines, reused as @line is (RecordLine says why)
        @stat = {}
        @stopping = false
        @flushing = Mutex.new
        @due = clock + @interval
      end

      # Writes what no request wrote; ends with the run: a process that outlives mallard records nothing more.
      def run
        loop do
          break if wait_for_tick

          flush_when_due(idle_after)
          break unless @running
        end
      end

      # Sleeps until the record is late, or less when stop wakes it; true when stopping.
      def wait_for_tick
        @lock.synchronize do
          @wake.wait(@lock, [@due + idle_after - clock, MIN_WAIT].max) unless @stopping
          @stopping
        end
      end

      def idle_after = @interval * IDLE_AFTER

      def clock = Process.clock_gettime(Process::CLOCK_MONOTONIC)

      # Opened per record rather than kept open: a descriptor shared across fork or closed by the
      # app would otherwise need its own care, and one open every interval costs nothing.
      def append(line)
        File.open(@path, File::APPEND | File::CREAT | File::WRONLY, 0o600) { |file| file.syswrite(line) }
      end

      def warn_once(error)
        return if @warned

        @warned = true
        warn "mallard agent: cannot record to #{@path} (#{error.class}: #{error.message}); " \
             "further errors are ignored"
      rescue StandardError
        nil
      end
    end
  end
end

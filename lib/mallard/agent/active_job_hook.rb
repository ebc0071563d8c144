# frozen_string_literal: true

module Mallard
  module Agent
    # Records each job an Active Job backend runs (Solid Queue's workers), from Active Support's notifications, as
    # JobMiddleware does Sidekiq's: "perform_start.active_job" counts it busy, "perform.active_job" records the time
    # it ran, its class, the time it waited (from the job's enqueued_at to the start of its run) and whether it raised.
    #
    # The agent is loaded by RUBYOPT before Rails exists, so it subscribes at once where Active Support is already
    # loaded, else from a thread that looks every LOOK_EVERY until it is: Solid Queue's async mode boots Rails and
    # runs its workers as threads of that one process, with no fork after. A process forked later (fork mode's
    # dispatcher, scheduler and workers) keeps its parent's subscription, or looks again. Not through a wrapped
    # Kernel#require, as SidekiqHook waits
    # for Sidekiq: Zeitwerk aliases Kernel#require when it loads, and an alias of a prepended require skips
    # Zeitwerk's own, which Solid Queue's autoloaded namespaces need.
    module ActiveJobHook
      STARTED = :mallard_job_started
      LOOK_EVERY = 0.1

      class << self
        # @param recorder [Recorder]
        def watch(recorder)
          @recorder = recorder
          install_when_loaded
        end

        # In a forked child: the parent's subscription, if any, came with it; its looking thread did not.
        def after_fork = install_when_loaded

        def install_when_loaded
          return if install

          looking = Thread.new { sleep(LOOK_EVERY) until install }
          looking.name = "mallard-active-job"
          looking.report_on_exception = false
          # Rails lists threads started at boot as fork hazards unless so marked; a child looks again (after_fork).
          looking.thread_variable_set(:fork_safe, true)
        end

        # @return [Boolean] whether it has subscribed
        def install
          return true if @installed
          return false unless (notifications = loaded_notifications)

          recorder = @recorder
          notifications.subscribe("perform_start.active_job") { ActiveJobHook.started(recorder) }
          notifications.subscribe("perform.active_job") { |*, payload| ActiveJobHook.performed(recorder, payload) }
          @installed = true
        end

        def loaded_notifications
          notifications = defined?(::ActiveSupport::Notifications) && ::ActiveSupport::Notifications
          notifications if notifications.respond_to?(:notifier) && notifications.notifier
        end

        # A job runs on one thread from its start to its end: the thread keeps when it started.
        def started(recorder)
          Thread.current[STARTED] = now_ms
          recorder.job_started
        end

        def performed(recorder, payload)
          ran_ms = now_ms - (Thread.current[STARTED] || now_ms)
          job = payload[:job]
          recorder.record_job(ran_ms, queued_ms(job, ran_ms), payload[:exception_object] ? 1 : 0, job.class.name)
        end

        def now_ms = Process.clock_gettime(Process::CLOCK_MONOTONIC, :float_millisecond)

        # From its enqueued_at to its start (now, less the time it ran): a Time from Active Job 7.1 on, its ISO 8601
        # text before.
        def queued_ms(job, ran_ms)
          enqueued = job.respond_to?(:enqueued_at) && job.enqueued_at
          enqueued = Time.iso8601(enqueued) if enqueued.is_a?(String) && Time.respond_to?(:iso8601)
          return unless enqueued.respond_to?(:to_r)

          waited = ((Time.now.to_r - enqueued.to_r) * 1000.0).to_f - ran_ms
          waited.negative? ? 0.0 : waited
        rescue ArgumentError
          nil
        end
      end
    end
  end
end

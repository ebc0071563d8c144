# frozen_string_literal: true

require_relative "job_middleware"
require_relative "require_watch"

module Mallard
  module Agent
    # Records each job a Resque worker runs, as JobMiddleware records Sidekiq's, once Resque has loaded (`rake
    # resque:work` requires it only when the task runs: RequireWatch waits for it).
    #
    # Resque's parent forks a child per job, which runs the one job and leaves with exit!: a child's own records would
    # be lost, and each would count its parent's heap as its own. So the parent records the job, from the fork to the
    # child's exit (what a job costs the worker), and the child only says, through a pipe, whether its job raised; a
    # child records nothing of its own (Agent.forked asks parent_records?). With FORK_PER_JOB=false the parent runs
    # each job itself and records it so.
    #
    # A job's wait in its queue is known only when its payload carries an enqueued_at (epoch seconds), which Resque's
    # own client does not add; without it the job's queue_ms is nil.
    module ResqueHook
      # The child's word for a job that did not raise; anything else (nothing, if it was killed) is a failure.
      DONE = "ok"

      # Raised in the parent, inside JobMiddleware, for a job its child said failed: recorded so, and rescued.
      class ChildFailed < StandardError; end

      # Prepended to Resque::Job: where a job runs.
      module Perform
        def perform
          ResqueHook.performed(payload, queue) { super }
        end
      end

      # Prepended to Resque::Worker, in the parent: a job run in a child of its own.
      module Fork
        private

        def perform_with_fork(job)
          ResqueHook.forked_job(job) { super }
        end
      end

      class << self
        # @param recorder [Recorder]
        def watch(recorder)
          @middleware = JobMiddleware.new(recorder)
          RequireWatch.add { install }
        end

        # @return [Boolean] whether Resque's worker is there to wrap
        def install
          return false unless defined?(::Resque::Worker) && defined?(::Resque::Job)

          ::Resque::Job.prepend(Perform)
          ::Resque::Worker.prepend(Fork)
          true
        end

        # Whether this process is a child forked to run one job, which its parent records.
        def parent_records? = !@writer.nil?

        # In the parent: the child's job recorded from its fork to its exit.
        def forked_job(job)
          reader, @writer = IO.pipe
          @middleware.call(nil, job.payload, job.queue) do
            yield
            @writer.close
            raise ChildFailed unless reader.read_nonblock(DONE.size, exception: false) == DONE
          end
        rescue ChildFailed
          nil
        ensure
          [reader, @writer].compact.reject(&:closed?).each(&:close)
          @writer = nil
        end

        # Where the job runs: in a child, its outcome goes to the parent; else it is recorded here.
        def performed(payload, queue, &)
          @writer ? in_child(&) : recorded(payload, queue, &)
        end

        private

        def recorded(payload, queue)
          result = nil
          @middleware.call(nil, payload, queue) { result = yield }
          result
        end

        def in_child
          outcome = "failed"
          result = yield
          outcome = DONE
          result
        ensure
          @writer.syswrite(outcome)
        end
      end
    end
  end
end

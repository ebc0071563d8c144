# frozen_string_literal: true

module Mallard
  module Agent
    # Rack middleware that tells apart the time a request spends in the app (what an in-app timer,
    # such as Rails' log line, reports) from the time its body takes to produce and write, and counts
    # the chunks the body yields, for the requests the recorder samples (Recorder#measure?). Needs nothing from rack,
    # so it works under Rack 2 and Rack 3.
    class Middleware
      def initialize(app, recorder: (Agent.recorder if Agent.respond_to?(:recorder)))
        @app = app
        @recorder = recorder
      end

      def call(env)
        return @app.call(env) unless @recorder&.measure?

        queue_ms = queued_ms(env["HTTP_X_REQUEST_START"])
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC, :float_millisecond)
        status, headers, body = @app.call(env)
        returned = Process.clock_gettime(Process::CLOCK_MONOTONIC, :float_millisecond)
        [status, headers, wrap(body, started, returned, queue_ms)]
      end

      private

      # The wait between the moment the client sent the request ("t=" and microseconds since the epoch, as
      # mallard's load clients and routers such as Heroku's write it) and this call: the request's queueing for a
      # free server thread, which no in-app timer sees. nil without the header, or with one in another form.
      def queued_ms(header)
        return unless header&.start_with?("t=")

        sent_us = header.byteslice(2, 20).to_i
        return unless sent_us.positive?

        (Process.clock_gettime(Process::CLOCK_REALTIME, :microsecond) - sent_us) / 1000.0
      end

      # An Array body goes back untouched: servers treat arrays specially (Puma sets Content-Length
      # from them instead of chunking), and a wrapper would change the very response being measured.
      # Its chunks are counted here; the time to write it is the server's and goes unmeasured (nil).
      def wrap(body, started, returned, queue_ms)
        return Body.new(body, started, returned, queue_ms, @recorder) unless body.instance_of?(Array)

        @recorder.record(returned - started, nil, body.size, queue_ms)
        body
      end

      # Wraps a response body without buffering it: each chunk is passed on as it is yielded.
      # The request is recorded once, when the server closes the body after writing it (or, for a
      # body with no close, when iteration ends).
      class Body
        # Answered only when the wrapped body answers them, so a server's choice of how to write
        # (iterate, stream with call, take an array, sendfile a path) is the same as without us.
        FORWARDED_ONLY = %i[each to_ary].freeze

        # started and returned: monotonic milliseconds around the app's call.
        def initialize(body, started, returned, queue_ms, recorder)
          @body = body
          @queue_ms = queue_ms
          @in_app_ms = returned - started
          @returned = returned
          @recorder = recorder
          @chunks = 0
          @recorded = false
        end

        def each
          @started = clock
          @body.each do |chunk|
            @chunks += 1
            yield chunk
          end
        ensure
          finish unless @body.respond_to?(:close)
        end

        # Rack 3 lets a server take the whole body as an array; the chunks are the array's elements.
        def to_ary
          @started = clock
          array = @body.to_ary
          @chunks = array.size
          array
        ensure
          finish unless @body.respond_to?(:close)
        end

        def close
          @body.close if @body.respond_to?(:close)
        ensure
          finish
        end

        def respond_to?(name, include_all = false) # rubocop:disable Style/OptionalBooleanParameter -- Ruby's signature
          return @body.respond_to?(name, include_all) if FORWARDED_ONLY.include?(name)

          super
        end

        # Everything else (to_path for sendfile, call for streaming bodies, ...) goes to the body.
        def respond_to_missing?(name, include_all = false)
          name != :to_str && @body.respond_to?(name, include_all)
        end

        def method_missing(name, ...)
          return super unless respond_to_missing?(name, true)

          @body.__send__(name, ...)
        end

        private

        # Body time runs from the start of iteration; a body the server wrote without iterating
        # (sendfile through to_path) is timed from when the app returned it.
        def finish
          return if @recorded

          @recorded = true
          @recorder.record(@in_app_ms, clock - (@started || @returned), @chunks, @queue_ms)
        end

        def clock
          Process.clock_gettime(Process::CLOCK_MONOTONIC, :float_millisecond)
        end
      end
    end
  end
end

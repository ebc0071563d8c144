# frozen_string_literal: true

module Mallard
  module Lifeline
    # SIGINT, SIGTERM and SIGHUP as an orderly stop, for the whole of a measuring command.
    #
    # The first signal while measuring raises in the main thread (SignalException; Interrupt for SIGINT), as
    # Ruby's own SIGINT handler would, so a sleep or a wait for the subject ends at once and the experiment
    # stops what it runs. Any signal after that, and any signal while `deferred` (writing what was measured),
    # is only remembered: a second Ctrl-C a tenth of a second later once aborted the writing of a soak's summary.
    # A comparison asks `received` between its soaks, so a signal caught inside one stops them all.
    module Signals
      NAMES = %w[INT TERM HUP].freeze

      class << self
        # @return [String, nil] the first signal received while guarded ("SIGINT"), nil if none
        attr_reader :received

        # Installs the handlers for the block; nested guards share the outermost one.
        def guard
          return yield if @installed

          @installed = true
          @received = nil
          previous = NAMES.to_h { |name| [name, Signal.trap(name) { |signo| arrived(signo) }] }
          begin
            yield
          ensure
            previous.each { |name, handler| Signal.trap(name, handler || "DEFAULT") }
            @installed = false
          end
        end

        # Signals during the block are remembered, not raised.
        def deferred
          depth = @deferred.to_i
          @deferred = depth + 1
          yield
        ensure
          @deferred = depth
        end

        private

        def arrived(signo)
          name = "SIG#{Signal.signame(signo)}"
          first = @received.nil?
          @received ||= name
          return unless first && @deferred.to_i.zero?

          raise signo == Signal.list["INT"] ? Interrupt : SignalException.new(signo)
        end
      end
    end
  end
end

# frozen_string_literal: true

require_relative "switches"

module Mallard
  module Agent
    # Puts JobMiddleware into a Sidekiq worker's server middleware chain. The agent is loaded by RUBYOPT before
    # the `sidekiq` executable has loaded anything, so there is no Sidekiq to configure yet; and the worker's
    # command line is the user's (`bundle exec sidekiq`, `sidekiq -r ./jobs.rb`), so mallard cannot add a -r of
    # its own. Instead, each require is followed by one check, until the Sidekiq server (Sidekiq::CLI) exists:
    # its CLI requires more files after defining itself and before booting the app, and Sidekiq reads the chain
    # only when it processes jobs. Then the hook stands aside: one boolean test per later require.
    #
    # Only where mallard asked for it (Switches::JOBS, set for a job worker target): a web app never has its
    # requires wrapped, nor this file loaded.
    module SidekiqHook
      # Prepended to Kernel, so it wraps whatever Kernel#require is now (RubyGems', Bootsnap's, Zeitwerk's).
      module Require
        private

        def require(path)
          super
        ensure
          SidekiqHook.install unless SidekiqHook.installed
        end
      end

      class << self
        attr_reader :installed

        # @param recorder [Recorder] what the middleware records jobs into
        def watch(recorder)
          require_relative "job_middleware"
          @recorder = recorder
          Kernel.prepend(Require)
          install
        end

        # Adds the middleware once the Sidekiq server exists; Sidekiq 6.4 to 8 all yield their configuration
        # to configure_server in the server at once.
        def install
          return unless defined?(::Sidekiq::CLI) && ::Sidekiq.respond_to?(:configure_server)

          @installed = true
          recorder = @recorder
          ::Sidekiq.configure_server do |config|
            config.server_middleware { |chain| chain.add(JobMiddleware, recorder) }
          end
        end
      end
    end
  end
end

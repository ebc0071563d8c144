# frozen_string_literal: true

require_relative "switches"
require_relative "require_watch"

module Mallard
  module Agent
    # Puts JobMiddleware into a Sidekiq worker's server middleware chain once the Sidekiq server (Sidekiq::CLI)
    # exists (RequireWatch): its CLI requires more files after defining itself and before booting the app, and Sidekiq
    # reads the chain only when it processes jobs.
    #
    # Only where mallard asked for it (Switches::JOBS, set for a job worker target): a web app never has its
    # requires wrapped, nor this file loaded.
    module SidekiqHook
      class << self
        # @param recorder [Recorder] what the middleware records jobs into
        def watch(recorder)
          require_relative "job_middleware"
          @recorder = recorder
          RequireWatch.add { install }
        end

        # Adds the middleware once the Sidekiq server exists; Sidekiq 6.4 to 8 all yield their configuration
        # to configure_server in the server at once.
        def install
          return false unless defined?(::Sidekiq::CLI) && ::Sidekiq.respond_to?(:configure_server)

          recorder = @recorder
          ::Sidekiq.configure_server do |config|
            config.server_middleware { |chain| chain.add(JobMiddleware, recorder) }
          end
          true
        end
      end
    end
  end
end

# frozen_string_literal: true

require_relative "../agent/require_watch"
require_relative "request_counter"

module Mallard
  module Exporter
    # Puts RequestCounter in front of the app of every Puma::Server made in this process and its forks: in single
    # mode the one process's, in cluster mode each worker's (each makes its server after it forks). Puma is loaded
    # after the exporter (RUBYOPT), so the hook waits for it (Agent::RequireWatch). Puma's control app (pumactl's
    # status server) is not counted.
    module PumaHook
      # Prepended to Puma::Server: its app is the first argument in Puma 5 to 7.
      module Counted
        def initialize(app, *rest, &)
          control = defined?(::Puma::App::Status) && app.is_a?(::Puma::App::Status)
          super(control ? app : RequestCounter.new(app), *rest, &)
        end
        ruby2_keywords(:initialize)
      end

      module_function

      def watch = Agent::RequireWatch.add { install }

      def install
        return false unless defined?(::Puma::Server)

        ::Puma::Server.prepend(Counted)
        true
      end
    end
  end
end

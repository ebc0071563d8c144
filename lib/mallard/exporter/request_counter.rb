# frozen_string_literal: true

require_relative "request_counts"

module Mallard
  module Exporter
    # Rack middleware that counts each request by method and path (RequestCounts) as it arrives, before the app
    # sees it, and changes nothing of the request or its response. PumaHook puts it in front of every app Puma
    # serves; an app served otherwise can `use Mallard::Exporter::RequestCounter` in its config.ru.
    class RequestCounter
      def initialize(app)
        @app = app
      end

      def call(env)
        RequestCounts.count(env["REQUEST_METHOD"], "#{env['SCRIPT_NAME']}#{env['PATH_INFO']}")
        @app.call(env)
      end
    end
  end
end

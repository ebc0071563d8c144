# frozen_string_literal: true

require "net/http"
require "uri"

module Mallard
  module Target
    # "Is the server up?": any HTTP answer counts, a 500 included — the app is serving.
    module HttpProbe
      module_function

      def answers?(url, timeout: 1)
        uri = URI(url)
        Net::HTTP.start(uri.host, uri.port, open_timeout: timeout, read_timeout: timeout) do |http|
          http.request(Net::HTTP::Get.new(uri.request_uri))
        end
        true
      rescue SystemCallError, IOError, Timeout::Error, Net::HTTPBadResponse
        false
      end
    end
  end
end

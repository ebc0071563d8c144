# frozen_string_literal: true

require "json"

module Mallard
  module Report
    # Any result as one JSON object, for scripts and CI.
    class Json
      def initialize(result)
        @result = result
      end

      def render(io)
        io.puts JSON.pretty_generate(@result.to_h)
      end
    end
  end
end

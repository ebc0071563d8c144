# frozen_string_literal: true

require "json"
require_relative "../value"

module Mallard
  module Report
    # Any result as one JSON object, for scripts and CI: a summary prints as summary.json holds it.
    class Json
      # @param value [Value, Hash, #to_h] a summary, a diff, a diagnosis
      def initialize(value)
        @value = value
      end

      def render(io)
        io.puts JSON.pretty_generate(Value.plain(plain_source))
      end

      private

      # A value or a hash is plain already; another record (a diagnosis) says what it holds through #to_h.
      def plain_source
        return @value if @value.is_a?(Value::InstanceMethods) || @value.is_a?(Hash) || @value.is_a?(Array)

        @value.to_h
      end
    end
  end
end

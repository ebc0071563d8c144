# frozen_string_literal: true

module Mallard
  module Report
    # ANSI colour for a terminal; a null object otherwise, so views never branch on it.
    class Color
      CODES = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, cyan: 36 }.freeze

      # NO_COLOR is the cross-tool convention for "never colour" (no-color.org).
      def self.for(io, env: ENV)
        io.respond_to?(:tty?) && io.tty? && !env.key?("NO_COLOR") ? new : Plain.new
      end

      CODES.each { |name, code| define_method(name) { |text| "\e[#{code}m#{text}\e[0m" } }

      # The same methods, returning the text unchanged.
      class Plain
        CODES.each_key { |name| define_method(name) { |text| text.to_s } }
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Probe
    # Checks shared by the load drivers: their settings go onto a command line or into requests.
    module LoadSettings
      private

      def positive(value, name)
        return value if value.is_a?(Numeric) && value.positive? && value.finite?

        raise ArgumentError, "#{name} must be a positive number, not #{value.inspect}"
      end

      # Paths go into the request line (and reach wrk.lua one per line). They are checked as bytes, since a
      # regexp raises on a string that is not valid UTF-8.
      def checked_paths(paths)
        paths = Array(paths)
        if paths.any? && paths.all? { |path| path.is_a?(String) && path.b.match?(%r{\A/\S*\z}) }
          return paths.map { |path| request_path(path) }.freeze
        end

        raise ArgumentError, "paths must be absolute request paths without spaces, not #{paths.inspect}"
      end

      # A request line is ASCII: other bytes (/café, a byte that is not UTF-8) are sent percent-encoded, as a
      # browser sends them. Neither wrk nor Net::HTTP takes them raw.
      def request_path(path)
        path.b.gsub(/[^!-~]/n) { |byte| format("%%%02X", byte.ord) }.force_encoding(Encoding::UTF_8)
      end
    end
  end
end

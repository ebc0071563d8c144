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

      # Paths go into the request line as they are (and reach wrk.lua one per line).
      def checked_paths(paths)
        paths = Array(paths)
        return paths.dup.freeze if paths.any? && paths.all? { |path| path.is_a?(String) && path.match?(%r{\A/\S*\z}) }

        raise ArgumentError, "paths must be absolute request paths without spaces, not #{paths.inspect}"
      end
    end
  end
end

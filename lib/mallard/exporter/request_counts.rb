# frozen_string_literal: true

module Mallard
  module Exporter
    # Requests this process has served, by method and path, counted as they arrive (RequestCounter) and written with
    # its readings (Readings). The path is cut to what names a route, so a fleet's series stay few: the query string
    # is not part of it, a segment of digits, a long hexadecimal one or a UUID is ":id", and once MAX_PATHS
    # distinct ones are counted every new one counts as "other". A method outside HTTP's common ones is "OTHER". A
    # Mutex keeps two of Puma's threads from losing a count between reading and writing it (a few tens of
    # nanoseconds a request: bench/exporter_reads_cost.rb).
    module RequestCounts
      MAX_PATHS = 50
      OTHER_PATH = "other"
      OTHER_METHOD = "OTHER"
      METHODS = %w[GET HEAD POST PUT PATCH DELETE OPTIONS].to_h { |name| [name, name] }.freeze
      PREFIX = "request."
      ID = ":id"
      # Digits; hexadecimal of 16 or more (a digest, a Mongo-style id) with at least one digit; a UUID.
      ID_SEGMENT = /\A(?:\d+|(?=[a-f]*\d)\h{16,}|\h{8}-\h{4}-\h{4}-\h{4}-\h{12})\z/i
      # A path longer than this is no route's name but a payload in the URL.
      MAX_BYTES = 200

      @counts = {}
      @lock = Mutex.new

      module_function

      # @param method [String, nil] REQUEST_METHOD
      # @param path [String, nil] PATH_INFO (SCRIPT_NAME prefixed by the caller where the app is mounted)
      def count(method, path)
        key = "#{METHODS.fetch(method, OTHER_METHOD)}:#{normalise(path)}"
        @lock.synchronize do
          key = "#{key[/\A[A-Z]+/]}:#{OTHER_PATH}" unless @counts.key?(key) || @counts.size < MAX_PATHS
          @counts[key] = @counts.fetch(key, 0) + 1
        end
      end

      # "/users/123/posts" as "/users/:id/posts"; bytes outside printable ASCII percent-encoded, as they travel. Each
      # step only where it can change something: a path with no digit holds no id, most paths are printable.
      def normalise(path)
        path = path.to_s.b
        return OTHER_PATH if path.bytesize > MAX_BYTES || !path.start_with?("/")

        path = path.split("/", -1).map { |segment| segment.match?(ID_SEGMENT) ? ID : segment }.join("/") if
          path.match?(/\d/n)
        path.match?(/[^!-~]/n) ? path.gsub(/[^!-~]/n) { |byte| format("%%%02X", byte.ord) } : path
      end

      # @return [Hash{String=>Integer}] "request.GET:/users/:id" => count, since this process started
      def readings
        @lock.synchronize { @counts.transform_keys { |key| "#{PREFIX}#{key}" } }
      end

      # A forked child (a Puma worker) counts its own requests from none.
      def after_fork
        @lock = Mutex.new
        @counts = {}
      end

      # [method, path] of a reading's key.
      def split(key) = key.delete_prefix(PREFIX).split(":", 2)
    end
  end
end

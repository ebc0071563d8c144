# frozen_string_literal: true

require "json"

module Mallard
  module Run
    # Appends one JSON object per line and flushes each, so a crash or Ctrl-C loses nothing
    # already measured.
    class JsonlWriter
      def initialize(path)
        @file = File.open(path, "a")
        @file.sync = true
      end

      def <<(record)
        @file.write("#{JSON.generate(record)}\n")
        self
      end

      def close
        @file.close unless @file.closed?
      end
    end
  end
end

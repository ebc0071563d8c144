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

      # @raise [WriteFailed] when the file takes no more writes
      def <<(record)
        @file.write("#{JSON.generate(record)}\n")
        self
      rescue SystemCallError => e
        raise WriteFailed, "cannot write #{@file.path}: #{e.message}"
      end

      def close
        @file.close unless @file.closed?
      rescue SystemCallError
        nil # what could be written was, line by line
      end
    end
  end
end

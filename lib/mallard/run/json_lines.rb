# frozen_string_literal: true

require "json"

module Mallard
  module Run
    # Reads a JSON-lines file written live: a last line cut short by a crash, or a line damaged some other way,
    # is counted and skipped, so the rest of the run is still read and the reader can say how much it lost.
    module JsonLines
      Result = Struct.new(:records, :skipped)

      module_function

      # @return [Result] records (Hashes, string keys) and the number of lines skipped
      def read(path)
        records = []
        skipped = 0
        File.foreach(path, mode: "rb") do |line|
          record = parse(line)
          record ? records << record : skipped += 1
        end
        Result.new(records, skipped)
      rescue Errno::ENOENT
        Result.new([], 0)
      end

      # @return [Hash, nil] nil for a blank, cut-short or non-object line
      def parse(line)
        text = Text.scrub_json(line)
        return if text.strip.empty?

        record = JSON.parse(text)
        record if record.is_a?(Hash)
      rescue JSON::ParserError
        nil
      end
    end
  end
end

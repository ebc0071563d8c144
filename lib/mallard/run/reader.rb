# frozen_string_literal: true

require "json"

module Mallard
  module Run
    # Says what kind of run a directory mallard wrote holds, live or stored; RunKind reads it with that kind's
    # reader.
    module Reader
      # A run written by a newer mallard may hold figures this one would misread.
      class NewerSchema < FailedMeasurement; end

      module_function

      # @return [Array(Directory, String)] the directory and the name of its kind of run (nil when neither
      #   meta.json nor summary.json names one)
      # @raise [NotFound] when path is not a directory, or one whose files are not readable
      # @raise [NewerSchema] when a newer mallard wrote it
      def identify(path)
        raise NotFound, "no run directory at #{path}" unless File.directory?(path)

        directory = Directory.new(path)
        meta = parse(directory, "meta.json")
        summary = parse(directory, "summary.json")
        refuse_newer(path, [meta, summary])
        [directory, summary&.fetch("kind", nil) || meta&.fetch("command", nil)]
      end

      # A file cut short or not JSON at all means the directory is not a run mallard can read.
      def parse(directory, name)
        directory.read_json(name)
      rescue JSON::ParserError, SystemCallError => e
        raise NotFound, "#{directory.path} is not a readable mallard run: #{name}: #{e.message.lines.first.strip}"
      end

      def refuse_newer(path, documents)
        version = documents.compact.map { |document| document["schema_version"].to_i }.max.to_i
        return if version <= Directory::SCHEMA_VERSION

        raise NewerSchema, "#{path} was written by a newer mallard (run schema #{version}; this mallard reads up " \
                           "to #{Directory::SCHEMA_VERSION}): upgrade mallard to read it"
      end

      private_class_method :parse, :refuse_newer
    end
  end
end

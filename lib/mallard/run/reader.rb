# frozen_string_literal: true

require "json"

module Mallard
  module Run
    # Opens any run directory mallard wrote, live or stored, and hands it to the reader of its kind.
    module Reader
      # A gc run (`mallard gc`) is a soak shown GC first.
      READERS = { "soak" => SoakReader, "gc" => SoakReader, "compare" => CompareReader, "boot" => BootReader,
                  "heap" => HeapReader, "fleet" => FleetReader }.freeze

      # A run written by a newer mallard may hold figures this one would misread.
      class NewerSchema < FailedMeasurement; end

      module_function

      # @return [SoakRun, CompareRun, BootRun]
      # @raise [NotFound] when path is not a directory, or not one mallard wrote
      # @raise [NewerSchema] when a newer mallard wrote it
      def open(path)
        raise NotFound, "no run directory at #{path}" unless File.directory?(path)

        directory = Directory.new(path)
        meta = parse(directory, "meta.json")
        summary = parse(directory, "summary.json")
        refuse_newer(path, [meta, summary])
        kind = summary&.fetch("kind", nil) || meta&.fetch("command", nil)
        reader = READERS.fetch(kind) do
          raise NotFound, "#{path} is not a mallard run directory (no soak, compare or boot meta.json or summary.json)"
        end
        reader.read(directory)
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

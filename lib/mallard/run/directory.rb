# frozen_string_literal: true

require "fileutils"
require "json"
require_relative "../errors"

module Mallard
  module Run
    # A run's home: meta.json (what was run, where), samples.jsonl (the sampler, appended live),
    # agent.jsonl (the in-process agent, appended live), load.json, summary.json.
    class Directory
      SCHEMA_VERSION = 1
      DEFAULT_ROOT = File.join(".mallard", "runs")

      attr_reader :path

      # @param out [String, nil] an explicit directory (--out); else a new one under root
      # @raise [UsageError] when out already holds files: samples are appended, so reusing it would mix
      #   two runs into one, and clearing it would destroy the earlier run; or when the directory
      #   cannot be created there (/proc, under a file, no permission) — before anything has run
      def self.create(command:, out: nil, root: DEFAULT_ROOT, now: Time.now)
        path = out || unique(File.join(root, "#{now.strftime('%Y%m%d-%H%M%S')}-#{command}"))
        refuse_occupied(path) if out
        make(path, out ? "--out #{path}" : "run directory #{path}")
        new(path)
      end

      private_class_method def self.make(path, what)
        FileUtils.mkdir_p(path)
      rescue SystemCallError => e
        hint = " (give --out a directory you may create)" unless what.start_with?("--out")
        raise UsageError, "cannot create #{what}: #{e.message.sub(/ @ .*| - .*/, '')}#{hint}"
      end

      private_class_method def self.refuse_occupied(path)
        raise UsageError, "--out #{path} is a file; name a directory" if File.file?(path)
        raise UsageError, "--out #{path} exists and is not a directory" if File.exist?(path) && !File.directory?(path)
        return unless File.directory?(path) && !Dir.empty?(path)

        raise UsageError, "--out #{path} already holds files (an earlier run?); name a new or empty directory, " \
                          "or remove it first"
      end

      def self.unique(base)
        candidates = [base] + (2..).lazy.map { |n| "#{base}-#{n}" }.first(100)
        candidates.find { |candidate| !File.exist?(candidate) }
      end

      # Absolute, because subjects run in their own directory (Puma chdirs into the app) and are
      # handed paths inside this one.
      def initialize(path)
        @path = File.expand_path(path)
      end

      def file(name)
        File.join(@path, name)
      end

      def write_json(name, data)
        temporary = file("#{name}.tmp")
        File.write(temporary, JSON.pretty_generate(data))
        File.rename(temporary, file(name)) # readers never see half a summary
      end

      def read_json(name)
        JSON.parse(File.read(file(name)))
      rescue Errno::ENOENT
        nil
      end

      def read_jsonl(name)
        return [] unless File.exist?(file(name))

        File.foreach(file(name)).filter_map do |line|
          JSON.parse(line)
        rescue JSON::ParserError
          nil # a line cut short by a crash; the rest of the run is still good
        end
      end
    end
  end
end

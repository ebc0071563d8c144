# frozen_string_literal: true

require "json"

module Mallard
  module Run
    # A run directory read back for `mallard report` and `mallard diff`: what kind of run it is, and its summary —
    # as stored, or for a soak killed before it wrote one, recomputed from the raw files the way the live run
    # would have (the same SoakSummary), so a run stopped hard still has a report.
    class Stored
      KINDS = %w[soak compare].freeze

      attr_reader :kind, :meta

      # @raise [NotFound] when path is not a directory, or not one mallard wrote
      def self.open(path)
        raise NotFound, "no run directory at #{path}" unless File.directory?(path)

        directory = Directory.new(path)
        meta = parse(directory, "meta.json")
        summary = parse(directory, "summary.json")
        kind = summary&.fetch("kind", nil) || meta&.fetch("command", nil)
        unless KINDS.include?(kind)
          raise NotFound, "#{path} is not a mallard run directory (no soak or compare meta.json or summary.json)"
        end

        new(directory, kind: kind, meta: meta || {}, summary: summary)
      end

      # A file cut short or not JSON at all means the directory is not a run mallard can read.
      def self.parse(directory, name)
        directory.read_json(name)
      rescue JSON::ParserError, SystemCallError => e
        raise NotFound, "#{directory.path} is not a readable mallard run: #{name}: #{e.message.lines.first.strip}"
      end
      private_class_method :parse

      def initialize(directory, kind:, meta:, summary:)
        @directory = directory
        @kind = kind
        @meta = meta
        @stored_summary = summary
      end

      def path
        @directory.path
      end

      # True when summary.json was missing and the summary had to be recomputed.
      def recomputed?
        @stored_summary.nil?
      end

      # @return [Hash] string keys, as summary.json holds them
      # @raise [NotFound] for a comparison without summary.json: its figures live in the per-run directories
      def summary
        @summary ||= @stored_summary || recompute
      end

      def samples
        @samples ||= @directory.read_jsonl("samples.jsonl")
      end

      def phases
        @meta.fetch("phases", nil) || {}
      end

      # A comparison's own soak runs, one directory each, in the order they were named.
      def soak_runs
        Dir.children(path).sort.map { |name| File.join(path, name) }
           .select { |child| File.file?(File.join(child, "meta.json")) }
      end

      private

      def recompute
        raise NotFound, compare_without_summary if @kind == "compare"

        # Through JSON, as the live run does, so views see string keys exactly as a stored summary has them.
        JSON.parse(JSON.generate(Analysis::SoakSummary.from_run(@directory)))
      end

      def compare_without_summary
        runs = soak_runs
        listing = runs.empty? ? "and none of its soak runs got as far as writing meta.json" : <<~TEXT.chomp
          its soak runs can be reported one by one:
          #{runs.map { |run| "  mallard report #{run}" }.join("\n")}
        TEXT
        "#{path} is a comparison without summary.json (it was stopped before it could write one); #{listing}"
      end
    end
  end
end

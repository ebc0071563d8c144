# frozen_string_literal: true

require "fileutils"
require "json"
require_relative "../errors"
require_relative "../value"
require_relative "../text"

module Mallard
  module Run
    # A run's home: meta.json (what was run, where), samples.jsonl (the sampler, appended live),
    # agent.jsonl (the in-process agent, appended live), load.json, summary.json.
    class Directory
      SCHEMA_VERSION = 2
      DEFAULT_ROOT = File.join(".mallard", "runs")

      attr_reader :path

      # @param out [String, nil] an explicit directory (--out); else a new one under root
      # @raise [UsageError] when out already holds files: samples are appended, so reusing it would mix
      #   two runs into one, and clearing it would destroy the earlier run; or when the directory
      #   cannot be created there (/proc, under a file, no permission) — before anything has run
      def self.create(command:, out: nil, root: DEFAULT_ROOT, now: Time.now)
        path = out || unique(File.join(root, "#{now.strftime('%Y%m%d-%H%M%S')}-#{command}"))
        refuse_occupied(path) if out
        made = !File.directory?(path)
        make(path, out ? "--out #{path}" : "run directory #{path}")
        new(path, made: made)
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
      # @param made [Boolean] whether this run created the directory (and so may remove it)
      def initialize(path, made: false)
        @path = File.expand_path(path)
        @made = made
      end

      def file(name)
        File.join(@path, name)
      end

      # Removes what a run that was refused before it measured anything left here (a usage error found only
      # once the target was prepared, such as a port already in use); the directory itself goes too unless it
      # was there, empty, before the run.
      def discard
        Dir.children(@path).each { |name| FileUtils.rm_rf(file(name)) }
        Dir.rmdir(@path) if @made
      rescue SystemCallError
        nil
      end

      # @param data [Hash, Value] anything Value.plain turns into JSON
      # @raise [WriteFailed] when the directory takes no more writes
      def write_json(name, data)
        temporary = file("#{name}.tmp")
        File.write(temporary, JSON.pretty_generate(Value.plain(data)))
        File.rename(temporary, file(name)) # readers never see half a summary
      rescue SystemCallError => e
        FileUtils.rm_f(temporary)
        raise WriteFailed, "cannot write #{file(name)}: #{e.message}"
      end

      # Writes a run's summary. A directory that cannot take it (a full disk) costs the file, never the summary in
      # hand: that is returned, marked as not saved — a complete run becomes interrupted with cause write_failed,
      # and the reason says which writes failed (earlier: failures the run had already met, meta.json's).
      # @param summary [Value] any kind's summary (#status, #reason; a #cause when it has one)
      # @return the summary, or a copy of it marked as not saved
      def save_summary(summary, name: "summary.json", earlier: [])
        failures = [*earlier, saved { write_json(name, summary) }].compact
        failures.empty? ? summary : unsaved(summary, failures)
      end

      # @return [String, nil] why the block's write failed
      def saved
        yield
        nil
      rescue WriteFailed => e
        e.message
      end

      # Files read back may hold bytes that are not UTF-8 (edited, or written by another program): they
      # are scrubbed, rather than failing the parse or dropping the line, so the rest of the run is read.
      def read_json(name)
        JSON.parse(Text.scrub_json(File.binread(file(name))))
      rescue Errno::ENOENT
        nil
      end

      private

      def unsaved(summary, failures)
        changes = { reason: [summary.reason, *failures, "this summary was not saved"].compact.uniq.join("; ") }
        if summary.status == "complete"
          changes[:status] = "interrupted"
          changes[:cause] = "write_failed" if summary.members.include?(:cause)
        end
        summary.with(**changes)
      end
    end
  end
end

# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Run
    # The records the boot probe writes (BootProbe::Output) as the run model holds them. Memory in bytes.

    # One reading, in Agent::BootReading::FIELDS order: objects allocated so far, RSS, its file-backed part, bytes
    # in live Ruby slots, bytes malloc has handed out beyond Ruby's heap pages (nil: the allocator gives none),
    # live slots.
    BootReading = Value.define(:objects, :rss, :file, :heap, :malloc, :live) do
      def self.from_a(values)
        values.is_a?(Array) ? new(**members.zip(values).to_h) : nil
      end

      def anon = rss - file
    end

    # One require: the file it loaded and its readings, or (loaded false) a require of a file already loaded,
    # or one that failed (error: its class). parent 0 is the boot itself. hook_objects: what the hook allocated
    # between the two readings.
    RequireRecord = Value.define(:id, :parent, :name, :file, :loaded, :error, :hook_objects,
                                 start: BootReading, finish: BootReading)

    # One boot: the probe's start and end lines and the requires between. failure: { class, message, where }
    # when the app raised during its boot; fork: smaps_rollup of the master and its workers (--workers);
    # stopped: the signal that stopped it mid-boot, when mallard did.
    # memsize: ObjectSpace.memsize_of_all after the boot, in bytes. malloc_stopped: why malloc was no longer read
    # per require (a reading too slow), nil when it was read throughout. The objects pass's retained:
    # { file => [objects, bytes] }, where a file named loader + a required name stands for the file that name
    # loaded (BootProbe::Hook::LOADER).
    BootRepeat = Value.define(:repeat, :pid, :mode, :ruby, :malloc, :malloc_note, :probe_bytes, :hook_objects, :loader,
                              :malloc_stopped, :stopped,
                              :gems, :ruby_dirs, :app_dir, :memsize, :failure, :fork, :retained,
                              start: BootReading, finish: BootReading, requires: [RequireRecord]) do
      def complete? = !finish.nil? && failure.nil?
      # Stopped by mallard (a signal, a timeout) before it finished: neither a measurement nor the app's failure.
      def stopped? = !stopped.nil? && !complete?
      def objects_pass? = repeat == "objects"
    end

    # A boot run's directory, read once. repeats: the memory repeats, by number; objects: the allocation-tracing
    # pass (nil when it did not run), whose retained holds { file => [objects, bytes] }.
    BootRun = Struct.new(:path, :meta, :repeats, :objects, :summary, :skipped, keyword_init: true) do
      include Value::Copy

      def phases = meta.phases || Phases.new
      def target = meta.target || TargetInfo.new
      def options = meta.options || {}
      def complete_repeats = repeats.select(&:complete?)
    end
  end
end

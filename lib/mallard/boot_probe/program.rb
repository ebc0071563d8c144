# frozen_string_literal: true

# `mallard boot`'s child process: boots one app once, under the require hook, and writes what it read to the run's
# samples.jsonl. Run as `ruby program.rb` in the app's directory, never inside mallard, with:
#   MALLARD_BOOT_OUT      samples.jsonl, shared by the repeats (one write per line)
#   MALLARD_BOOT_REPEAT   this repeat's number; "objects" for the allocation-tracing pass (Retained)
#   MALLARD_BOOT_MODE     "rails" (require config/environment) or "bundler" (bundler/setup, Bundler.require)
#   MALLARD_BOOT_WORKERS  how many workers to fork after the boot (Workers), 0 for none
# It loads only its own files (no json, no mallard library), so the app's requires all happen inside the hook.
MALLARD_PROBE_START_PAGES = File.read("/proc/self/statm").split[1].to_i

# The in-process readers it shares with the in-app agent (the agent's memory ledger reads as the boot does).
require_relative "../agent/malloc_stats"
require_relative "../agent/boot_reading"
require_relative "../agent/code_places"
require_relative "output"
require_relative "hook"
require_relative "workers"

module Mallard
  module BootProbe
    class Program
      def initialize(env)
        @env = env
        @objects_pass = env["MALLARD_BOOT_REPEAT"] == "objects"
        @reading = Agent::BootReading.new
        @output = Output.new(env.fetch("MALLARD_BOOT_OUT"), repeat: repeat)
        @hook = Hook.new(reading: @reading, output: @output, traced: @objects_pass)
      end

      def run
        stop_on_signals
        retained = tracing if @objects_pass
        @output.write("start", start_fields(baseline))
        @hook.install
        boot
        @hook.stop
        finish
        retained&.write(@output)
        workers = @env["MALLARD_BOOT_WORKERS"].to_i
        Workers.new(workers, @output).measure if workers.positive? && !@objects_pass
      end

      private

      def repeat
        @objects_pass ? "objects" : Integer(@env.fetch("MALLARD_BOOT_REPEAT"))
      end

      def tracing
        require_relative "retained"
        Retained.new
      end

      # A full GC before the first and after the last reading: the boot's total is what stays.
      def baseline
        GC.start
        @reading.to_a
      end

      # What loading the probe itself added, so the analysis can leave it out of Ruby's own baseline.
      def start_fields(reading)
        { "pid" => Process.pid, "reading" => reading, "mode" => @env["MALLARD_BOOT_MODE"],
          "probe_bytes" => reading[1] - (MALLARD_PROBE_START_PAGES * @reading.page_size),
          "ruby" => RUBY_DESCRIPTION, "malloc" => Agent::MallocStats.source,
          "malloc_note" => Agent::MallocStats.unavailable_reason,
          "heap_pools" => GC.respond_to?(:stat_heap) ? GC.stat_heap.size : 1, "loader" => Hook::LOADER }
      end

      def boot
        if @env["MALLARD_BOOT_MODE"] == "rails"
          require File.expand_path("config/environment")
        else
          require "bundler/setup"
          Bundler.require(*[:default, @env["RACK_ENV"]&.to_sym].compact.uniq)
        end
      rescue Exception => e # rubocop:disable Lint/RescueException -- any other way the boot ends early is its failure
        failed(e)
      end

      # mallard stops its probes with TERM (a Ctrl-C, a timeout), which is not the app failing. The probe ends
      # from the handler itself: raised inside a require, the signal's exception would unwind through RubyGems'
      # ensure blocks, which replace it with an error of their own ("RUBYGEMS_ACTIVATION_MONITOR"). An app that
      # installs its own handler during its boot takes the signal over.
      def stop_on_signals
        %w[TERM INT HUP].each do |name|
          Signal.trap(name) do
            @output.write("stopped", "signal" => "SIG#{name}")
            exit!(1)
          end
        end
      end

      def failed(error)
        where = error.backtrace&.find { |line| line.start_with?(Dir.pwd) } || error.backtrace&.first
        @output.write("failed", "class" => error.class.name, "message" => error.message.to_s[0, 2000],
                                "where" => where)
        exit!(1)
      end

      def finish
        GC.start
        @output.write("end", "reading" => @reading.to_a, "hook_objects" => @hook.own,
                             "malloc_stopped" => @reading.malloc_stopped, **Agent::CodePlaces.to_h)
        require "objspace" # after the reading: its own cost is not the app's
        @output.write("memsize", "bytes" => ObjectSpace.memsize_of_all)
      end
    end
  end
end

Mallard::BootProbe::Program.new(ENV).run if $PROGRAM_NAME == __FILE__

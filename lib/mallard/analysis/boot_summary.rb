# frozen_string_literal: true

module Mallard
  module Analysis
    # A boot run's repeats, merged: every figure mallard boot prints is computed here from Run::BootRun.
    #
    # Each node is matched across repeats by its path of names from the root; its figure is the median over the
    # repeats that loaded it, with a 95% Student t interval of the mean (Statistics.mean_ci), marked uncertain
    # when the interval includes zero. Parts are medians too, and unexplained is what the median RSS leaves
    # after them, so the parts always add up to the figure they split.
    module BootSummary
      METHOD = "Each repeat is a fresh Ruby that boots the app once under a require hook placed beneath every " \
               "other require patch (RubyGems' gem_original_require, and require_relative). Each require is read " \
               "at its start and its end without a GC (/proc/self/statm for RSS and its file-backed part, " \
               "GC.stat for live slots and objects allocated, the allocator's own count for malloc): a GC at " \
               "every require would change the boot being measured, and RSS is a high-water mark a GC hardly " \
               "lowers. Ruby itself (before the first require) and the total (after the last) are read after a " \
               "full GC. The hook allocates ~3 objects per require and counts them out; the probe's own code is " \
               "left out of the baseline. Retained objects come from one more boot with allocation tracing, whose " \
               "memory is never used. Figures: medians over the repeats, 95% Student t intervals."

      module_function

      # @param run [Run::BootRun]
      # @return [Summary::Boot]
      def call(run)
        repeats = run.complete_repeats
        trees = trees(repeats)
        pass = run.objects&.retained && run.objects
        figures = figures(trees, repeats, pass, cutoff_kb(run))
        Summary::Boot.new(
          kind: "boot", schema_version: Run::Directory::SCHEMA_VERSION, **status(run, repeats), **about(run, repeats),
          repeats: repeats.size, cutoff_kb: cutoff_kb(run), methodology: METHOD, objects_pass: !pass.nil?,
          failures: failures(run), target: run.target, **figures, reading: BootReading.call(figures[:tree],
                                                                                            figures[:gems])
        )
      end

      # The repeats of one run loaded the same gems: one FileOwners answers for all.
      def trees(repeats)
        first = repeats.first
        owners = first && FileOwners.new(gems: first.gems, ruby_dirs: first.ruby_dirs, app_dir: first.app_dir)
        repeats.map { |repeat| BootTree.new(repeat, owners: owners) }
      end

      # What was booted, on what.
      def about(run, repeats)
        first = repeats.first || Run::BootRepeat.new
        { app: run.target.description, mode: first.mode || run.options["mode"],
          environment: run.options["environment"], allocator: run.options["allocator"], ruby: first.ruby,
          malloc: first.malloc, malloc_note: first.malloc_note, malloc_stopped: malloc_stopped(repeats),
          probe_kb: median(repeats.map { |repeat| repeat.probe_bytes.to_i / BootFigures::KIB }) }
      end

      # glibc's mallinfo2 can take milliseconds on a fragmented heap: the probe then stops reading it per require.
      def malloc_stopped(repeats)
        stopped = repeats.filter_map(&:malloc_stopped)
        Summary::MallocStopped.new(repeats: stopped.size, of: repeats.size, first: stopped.first) unless stopped.empty?
      end

      def cutoff_kb(run)
        run.options.fetch("cutoff_mb", 0.3).to_f * 1024
      end

      def figures(trees, repeats, pass, cutoff)
        return { tree: [], gems: [] } if trees.empty?

        files = RetainedByFile.new(pass, trees.first.owners)
        { total: BootFigures.total(trees, repeats, files), tree: BootFigures.tree(trees, files, cutoff),
          gems: BootFigures.gems(trees, files), fork: BootFigures.fork(repeats) }
      end

      # Failed when no repeat finished its boot, or most did not: a boot that fails more often than it works
      # measures nothing.
      def status(run, repeats)
        outcome = run.phases.outcome
        failed = failures(run)
        if repeats.empty? || failed.size > repeats.size
          first = failed.first
          reason = first ? "the app did not boot (repeat #{first.repeat}): #{first.reason}" : "no repeat finished"
          return { status: "failed", cause: "boot_failed", reason: reason }
        end
        return { status: "running" } if outcome.nil? || outcome.status == "running"

        { status: outcome.status, cause: outcome.cause, reason: outcome.reason }
      end

      def failures(run)
        run.repeats.reject { |repeat| repeat.complete? || repeat.stopped? }.map do |repeat|
          failure = repeat.failure || {}
          reason = [failure["class"], failure["message"]].compact.join(": ")
          reason = "it ended before its boot did" if reason.empty?
          Summary::BootFailure.new(repeat: repeat.repeat, reason: reason, where: failure["where"])
        end
      end

      def median(values)
        Statistics.median(values.compact)
      end
    end
  end
end

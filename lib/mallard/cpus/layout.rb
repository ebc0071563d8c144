# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Cpus
    # Where a run's processes may run. By default the subject has every CPU mallard was given, shared with the load
    # generator and mallard's own sampling, as an app has its host's CPUs in production: confining it changes the
    # very thing measured (glibc creates arenas when threads contend, and threads on one CPU rarely do; see
    # bench/README.md, "CPU placement"). Pinning the subject to some CPUs and the load to others is there for cost
    # questions (--cpus split, or SUBJECT:LOAD lists), and to match a smaller production host (--cpus N).
    #
    # available: the CPUs mallard was given; subject and load: where each runs (the same list when shared);
    # pinned: whether the two are kept apart; reason: why the layout is what it is.
    Layout = Value.define(:pinned, :subject, :load, :available, :reason)

    class Layout
      # --cpus split: the load side's share, a whole CPU at least (wrk needs far less than the app it drives).
      LOAD_SHARE = 4
      LIST = /\A\d+(-\d+)?(,\d+(-\d+)?)*\z/
      COUNT = /\A[1-9]\d*\z/
      SHARED = %w[all off].freeze
      # What confinement did to a fragmenting app here, for the line shown wherever it is on (bench/README.md).
      CONFINED_NOTE = "a confined app fragments glibc less than it does in production (measured here: one CPU " \
                      "of two cut a fragmenting app's glibc RSS from 379 to 202 MiB and MALLOC_ARENA_MAX=2's " \
                      "saving from −42% to −7%), so memory savings measured this way understate production's"

      # @param spec [String, nil] --cpus: nil, "all" or "off" (shared, the default); N (the subject gets N CPUs, the
      #   load the rest); "split" (a quarter to the load, a CPU at least); "SUBJECT:LOAD" (CPU lists such as 1:0)
      # @param available [Array<Integer>] the CPUs mallard may use
      # @raise [UsageError] a choice that cannot be honoured, named with what is available
      def self.choose(spec, available:)
        return shared(available, "the subject has every CPU mallard may use, shared with the load") \
          if spec.nil? || SHARED.include?(spec)
        return count(Integer(spec, 10), available) if spec.match?(COUNT)
        return split(available) if spec == "split"

        explicit(spec, available)
      end

      def self.shared(available, reason)
        new(pinned: false, subject: available, load: available, available: available, reason: reason)
      end

      # As many CPUs as the production host has: the subject takes the last N, the load what is left.
      def self.count(wanted, available)
        if wanted > available.size
          raise UsageError, "--cpus #{wanted}: only #{available.size} CPUs are available to mallard " \
                            "(#{format_list(available)})"
        end
        return shared(available, "--cpus #{wanted}: every CPU mallard may use, shared with the load") \
          if wanted == available.size

        pinned(available.last(wanted), available.first(available.size - wanted), available, "--cpus #{wanted}")
      end

      def self.split(available)
        if available.size < 2
          return shared(available, "only #{available.size} CPU is available to mallard: the subject and the load " \
                                   "share it")
        end

        load_count = [available.size / LOAD_SHARE, 1].max
        pinned(available.drop(load_count), available.first(load_count), available, "--cpus split")
      end

      def self.explicit(spec, available)
        subject, load = spec.split(":", -1).map { |part| checked_list(part, spec) }
        unless load
          raise UsageError, "--cpus takes a count (e.g. 4), split, all, or SUBJECT:LOAD lists (e.g. 1:0), " \
                            "not #{spec.inspect}"
        end

        check_choice(subject, load, available, spec)
        pinned(subject, load, available, "--cpus #{spec}")
      end

      def self.pinned(subject, load, available, reason)
        new(pinned: true, subject: subject, load: load, available: available, reason: reason)
      end

      def self.checked_list(part, spec)
        raise UsageError, "--cpus #{spec.inspect}: #{part.inspect} is not a CPU list" unless part.to_s.match?(LIST)

        parse_list(part)
      end

      def self.check_choice(subject, load, available, spec)
        if subject.intersect?(load)
          raise UsageError, "--cpus #{spec}: the subject and the load share CPU #{format_list(subject & load)}; " \
                            "give them disjoint lists"
        end
        outside = (subject + load) - available
        return if outside.empty?

        raise UsageError, "--cpus #{spec}: CPU #{format_list(outside)} is not available to mallard " \
                          "(available: #{format_list(available)})"
      end

      # "0-2,5" → [0, 1, 2, 5], as the kernel writes Cpus_allowed_list.
      def self.parse_list(text)
        text.split(",").flat_map do |range|
          first, last = range.split("-").map { |cpu| Integer(cpu, 10) }
          (first..(last || first)).to_a
        end.uniq.sort
      end

      # [0, 1, 2, 5] → "0-2,5"
      def self.format_list(cpus)
        cpus.sort.slice_when { |a, b| b != a + 1 }
            .map { |run| run.size > 1 ? "#{run.first}-#{run.last}" : run.first.to_s }.join(",")
      end

      private_class_method :shared, :count, :split, :explicit, :pinned, :checked_list, :check_choice

      # How many CPUs the subject had (nil for a layout stored before this was recorded).
      def subject_cpus = subject&.size

      # The plain line the commands print before a run, and the reports show.
      def description
        unless pinned
          return "CPUs: #{shared_cpus}, shared by the subject and the load (#{reason}; --cpus N to match a " \
                 "smaller production host)"
        end

        "CPUs: the subject on #{Layout.format_list(subject)}; load and sampling on #{Layout.format_list(load)} " \
          "(#{reason}). Note: #{CONFINED_NOTE}"
      end

      private

      # Layouts stored by older versions have no available list.
      def shared_cpus
        cpus = subject || available
        return "not recorded" unless cpus

        "#{cpus.size} (#{Layout.format_list(cpus)})"
      end
    end
  end
end

# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Cpus
    # Where a run's processes may run: the subject on some CPUs, the load generator and mallard's own sampling on
    # others, so that the load tool never takes CPU time from the app it measures and the app's CPU time per request
    # is its own. pinned false says why not (reason): one CPU, or --cpus off.
    Layout = Value.define(:pinned, :subject, :load, :reason)

    class Layout
      # The load side's share by default: wrk needs far less CPU than the app it drives, but a whole CPU at least.
      LOAD_SHARE = 4
      LIST = /\A\d+(-\d+)?(,\d+(-\d+)?)*\z/

      # @param spec [String, nil] --cpus: "SUBJECT:LOAD" (CPU lists such as 1 or 2-3,5), "off", or nil for the default
      # @param available [Array<Integer>] the CPUs mallard may use
      # @raise [UsageError] a list that cannot be honoured, named with what is available
      def self.choose(spec, available:)
        return unpinned("--cpus off") if spec == "off"
        return split(available) if spec.nil?

        subject, load = spec.split(":", -1).map { |part| checked_list(part, spec) }
        raise UsageError, "--cpus takes SUBJECT:LOAD (e.g. 1:0 or 2-3:0-1) or off, not #{spec.inspect}" unless load

        check_choice(subject, load, available, spec)
        new(pinned: true, subject: subject, load: load, reason: nil)
      end

      def self.split(available)
        if available.size < 2
          return unpinned("only #{available.size} CPU is available to mallard: the subject and the load share it")
        end

        load_count = [available.size / LOAD_SHARE, 1].max
        new(pinned: true, subject: available.drop(load_count), load: available.first(load_count), reason: nil)
      end

      def self.unpinned(reason) = new(pinned: false, subject: nil, load: nil, reason: reason)

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

      private_class_method :split, :unpinned, :checked_list, :check_choice

      # The plain line the commands print before a run.
      def description
        return "not pinning CPUs: #{reason}" unless pinned

        "CPUs: the subject on #{Layout.format_list(subject)}; load and sampling on #{Layout.format_list(load)} " \
          "(--cpus to change)"
      end
    end
  end
end

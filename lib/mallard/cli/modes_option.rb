# frozen_string_literal: true

module Mallard
  class CLI
    # compare --modes fork,async: each row run with Solid Queue in each mode (rows CONFIG/async), started as its users
    # start that mode and its tree checked from outside (Target::SolidQueueWorker#shaped). The modes ride the rows where
    # --shape's Puma shapes would (Experiments::Compare), so they cross --allocators as shapes do; the two never meet,
    # since --shape refuses a job worker.
    module ModesOption
      module_function

      # @param target [Target::SolidQueueWorker, #kind] the target the command line names
      # @param list [Array<String>] --modes' values
      # @param given [Array<String>] the measuring options given (--mode, one mode for every row, goes without it)
      # @return [Array(Array<SolidQueueMode>, Target::SolidQueueWorker)] the modes, and the target described by them
      # @raise [UsageError] a target that is not a Solid Queue worker, or a mode not measured
      def apply(target, list, given: [])
        raise UsageError, "give --mode or --modes, not both" if given.include?("--mode")
        unless target.kind == "solid_queue"
          raise UsageError, "--modes applies to a Solid Queue worker (--jobs solid_queue), not a #{target.kind} target"
        end

        modes = SolidQueueMode.parse_all(list)
        [modes, target.in_modes(modes)]
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Run
    # One plan's run directory, read once: its meta.json (the limit and offered load in options, the measured shape
    # and the checked one in configs), its stored summary (nil when it was stopped before writing one), and its soaks
    # by name: measure-1 … measure-R in the measured shape, then check in the chosen one.
    PlanRun = Struct.new(:path, :meta, :summary, :soaks, keyword_init: true) do
      def target = (summary&.target || meta.target || TargetInfo.new)

      # The measuring soaks, in the order they ran.
      def measuring = soaks.select { |name, _| name.start_with?(PlanReader::MEASURE) }.values

      # The soak of the chosen count; nil when none was run.
      def check = soaks[PlanReader::CHECK]
    end
  end
end

# frozen_string_literal: true

module Mallard
  class CLI
    # A command that runs the app under load (soak and its kin, compare, plan, budget): it parses the target, the
    # load and the subject through one MeasureOptions.
    class MeasuringCommand < Command
      def initialize(out:, err:, env:)
        super
        @measure = MeasureOptions.new
      end
    end
  end
end

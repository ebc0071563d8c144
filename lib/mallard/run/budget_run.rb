# frozen_string_literal: true

module Mallard
  module Run
    # One budget's run directory, read once: meta.json (the app, the file, --update and --repeat in options), the
    # budget as it was read (BudgetFile, from budget.json), its stored summary (nil when it was stopped before one),
    # and each entry's soaks in the order they ran (soaks[i]: the i-th entry's).
    BudgetRun = Struct.new(:path, :meta, :budget, :summary, :soaks, keyword_init: true) do
      def target = (summary&.target || meta.target || TargetInfo.new)
      def options = meta.options || {}
    end
  end
end

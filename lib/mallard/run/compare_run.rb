# frozen_string_literal: true

module Mallard
  module Run
    # One comparison's run directory, read once: its meta.json, its stored summary (nil when it was stopped
    # before writing one), and its soak runs per configuration, as the summary names them. missing counts the
    # runs the summary names that are not on disk (a comparison copied without them).
    CompareRun = Struct.new(:path, :meta, :summary, :soak_runs, :missing, keyword_init: true) do
      def target = (summary&.target || meta.target || TargetInfo.new)

      # Every soak run directory below this one, named or not: what is left of a comparison without summary.
      def soak_paths
        Dir.children(path).sort.map { |name| File.join(path, name) }
           .select { |child| File.file?(File.join(child, "meta.json")) }
      end
    end
  end
end

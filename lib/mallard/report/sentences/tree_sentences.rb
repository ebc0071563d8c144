# frozen_string_literal: true

module Mallard
  module Report
    # A comparison's trees in parts, for both views (through CompareSentences#trees): per configuration whose runs had
    # several processes, its memory shared between them and private to each, the master's part and a worker's (each
    # the median of its counted runs with its interval, Summary::TreeFigures), and its shared memory against the
    # baseline's by the one change rule (Summary::Versus#shared). Plain text; empty where every tree was one process.
    class TreeSentences
      include Formatting

      # @param summary [Summary::Compare]
      def initialize(summary)
        @summary = summary
        @configs = summary.configs.select(&:tree)
      end

      # The heading and a line per configuration; nothing without a tree of several processes.
      def all = @configs.empty? ? [] : [heading, *lines]

      def heading
        "Each tree in parts (MiB, median of repeats with 95% intervals): shared is the memory its processes share " \
          "(summed PSS less summed USS: each shared page once), private what each holds alone (summed USS); the " \
          "master's PSS and a worker's (the median of its workers'); a reforking shape's reforks in each counted run"
      end

      def lines = @configs.map { |config| line(config) }

      private

      def line(config)
        tree = config.tree
        format("%<name>s: shared %<shared>s%<versus>s · private %<own>s · master %<main>s · a worker %<worker>s" \
               "%<reforks>s",
               name: Text.printable(config.name), shared: mib_interval(tree.shared_kb), versus: versus(config),
               own: mib_interval(tree.private_kb), main: mib_interval(tree.main_pss_kb),
               worker: mib_interval(tree.worker_pss_kb), reforks: reforks(config.name))
      end

      # " · reforked 1, 1 times", or that it never did; nothing for a shape that does not refork.
      def reforks(name)
        counts = @summary.rows.find { |row| row.name == name }&.runs.to_a.filter_map(&:reforks)
        return "" if counts.empty?
        return " · never reforked in its runs" if counts.all?(&:zero?)

        " · reforked #{counts.join(', ')} times"
      end

      # The shared memory's change against the baseline's, where both were trees of several processes.
      def versus(config)
        shared = config.vs_baseline&.shared
        return "" unless shared

        " (#{change(shared.pct, shared.ci, shared.finding, note: shared.note)} against " \
          "#{Text.printable(@summary.baseline)}'s)"
      end
    end
  end
end

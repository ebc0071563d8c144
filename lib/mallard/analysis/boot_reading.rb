# frozen_string_literal: true

module Mallard
  module Analysis
    # How to read a boot's figures where they surprise: a line for each kind of surprise the boot holds (a
    # negative MiB, a figure marked "?", a gem with more objects retained than it allocated), none otherwise.
    module BootReading
      NEGATIVE = "A negative MiB: that part of memory shrank while the require ran (a GC it set off freed more " \
                 "than it allocated, or malloc gave memory back), so the require is credited with it."
      UNCERTAIN = "? after a figure: its 95% interval includes zero; over these repeats it cannot be told from " \
                  "nothing."
      RETAINED = "More objects retained than allocated (%s): objects allocated counts what a gem's requires made " \
                 "while they ran; objects retained counts every object alive after the boot that was made by a " \
                 "line in the gem's files, including those made later when other code called the gem (YAML " \
                 "loading the app's config through psych, for instance)."

      module_function

      # @param tree [Array<Summary::BootNode>]
      # @param gems [Array<Summary::BootGem>]
      # @return [Array<String>]
      def call(tree, gems)
        nodes = flatten(tree)
        [(NEGATIVE if (nodes + gems).any? { |item| negative?(item) }),
         (UNCERTAIN if (nodes + gems).any?(&:uncertain)), retained(gems)].compact
      end

      def flatten(nodes) = nodes.flat_map { |node| [node, *flatten(Array(node.children))] }

      def negative?(item)
        parts = item.parts&.to_h.to_h.values
        [item.rss_kb, (item.self_kb if item.respond_to?(:self_kb)), *parts].compact.any? { |kb| kb <= -51.2 }
      end

      def retained(gems)
        over = gems.select { |gem| gem.objects && gem.retained_objects && gem.retained_objects > gem.objects }
        format(RETAINED, over.map(&:name).join(", ")) unless over.empty?
      end
    end
  end
end

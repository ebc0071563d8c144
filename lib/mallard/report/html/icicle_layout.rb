# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Where each require of a boot's tree goes in the icicle chart: geometry only, in pixels. The total spans
      # the width at depth 0; each require is as wide as its inclusive RSS on that scale, beneath its parent, its
      # children left to right from the parent's left edge; what the tree's cut hid under a require follows its
      # children as one box. The remaining space under a parent is its own (self) memory.
      class IcicleLayout
        # kind: :total, :node (a Summary::BootNode) or :hidden (a node's hidden: { "count", "rss_kb" }).
        Box = Struct.new(:kind, :item, :x, :width, :depth, keyword_init: true) do
          def right = x + width
        end

        attr_reader :boxes

        # @param total [Summary::BootTotal]
        # @param tree [Array<Summary::BootNode>]
        # @param max_depth [Integer] require levels drawn beneath the total; deeper ones are in the table
        # @param min_width [Numeric] narrower boxes (and what is under them) are not drawn: they would be a hairline
        def initialize(total:, tree:, width:, max_depth:, min_width:)
          @scale = width / total.rss_kb.to_f
          @max_depth = max_depth
          @min_width = min_width
          @narrowed = false
          @boxes = [Box.new(kind: :total, item: total, x: 0.0, width: width.to_f, depth: 0)]
          place(tree, nil, @boxes.first)
        end

        # Whether some children were drawn narrower than their RSS: they add up to more than their parent, as
        # medians taken over different repeats can.
        def narrowed? = @narrowed

        def depth = @boxes.map(&:depth).max

        private

        def place(children, hidden, parent)
          depth = parent.depth + 1
          return if depth > @max_depth

          fit = fit(children, parent.width)
          x = parent.x
          children.each do |node|
            width = node.rss_kb.to_f * @scale * fit
            next unless width.positive?

            add(:node, node, x, width, depth) { |box| place(node.children, node.hidden, box) }
            x += width
          end
          place_hidden(hidden, x, parent.right - x, depth)
        end

        # Children that add up to more than their parent are narrowed alike, all by one factor, to fit under it.
        def fit(children, width)
          wanted = children.sum { |node| [node.rss_kb.to_f, 0].max } * @scale
          return 1.0 if wanted <= width || wanted.zero?

          @narrowed = true
          width / wanted
        end

        def place_hidden(hidden, x, room, depth)
          return unless hidden && hidden["rss_kb"].to_f.positive?

          add(:hidden, hidden, x, [hidden["rss_kb"].to_f * @scale, room].min, depth)
        end

        def add(kind, item, x, width, depth)
          return if width < @min_width

          box = Box.new(kind: kind, item: item, x: x, width: width, depth: depth)
          @boxes << box
          yield box if block_given?
        end
      end
    end
  end
end

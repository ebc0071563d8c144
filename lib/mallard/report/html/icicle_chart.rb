# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A boot's require tree as an icicle chart in inline SVG: the total across the top, each require beneath
      # whatever required it, as wide as its inclusive RSS, coloured by its gem. Every box carries its figures as a
      # tooltip (<title>: no script needed); a label is drawn where it fits. The table beneath the chart holds the
      # same tree for readers who cannot see it, and the requires too deep or too narrow to draw.
      class IcicleChart
        include SvgTag
        include Formatting

        WIDTH = 760
        ROW = 22
        MAX_DEPTH = 12 # levels of requires; a deeper tree would make a tall, mostly empty drawing
        MIN_WIDTH = 1 # px: a narrower box is a hairline no one can point at
        PAD = 4
        CHAR_WIDTH = 6.6 # of an 11 px system-ui label, generously: a label must stay inside its box
        LEGEND_ROW = 20
        LEGEND_SWATCH = 18
        ALSO_SHOWN = 10

        # @param summary [Summary::Boot] one with a total
        def initialize(summary)
          @summary = summary
          @layout = IcicleLayout.new(total: summary.total, tree: summary.tree, width: WIDTH, max_depth: MAX_DEPTH,
                                     min_width: MIN_WIDTH)
          @boxes = @layout.boxes
          @colors = GemColors.new(gems)
        end

        def title = "The require tree: each require's inclusive RSS, beneath what required it"

        def to_html
          notes = self.notes.map { |note| tag(:p, h(note), class: "note") }
          content = ["", tag(:figcaption, h(title)), to_svg, *notes, ""].join("\n")
          Safe.new(tag(:figure, content, class: "chart", id: "chart-icicle"))
        end

        def to_svg
          body = [tag(:title, h(title)), *@boxes.map { |box| draw(box) }, *legend].join("\n")
          Safe.new(tag(:svg, "\n#{body}\n", role: "img", aria_label: title, viewBox: "0 0 #{WIDTH} #{height}",
                                            width: WIDTH, height: height, font_family: "system-ui, sans-serif",
                                            font_size: 11))
        end

        def notes
          notes = ["Width: inclusive RSS, on one scale from the total. Hover over a box for its figures. " \
                   "Requires under #{mib(@summary.cutoff_kb)} are hidden by the cutoff (grey); narrower than " \
                   "#{MIN_WIDTH} px or deeper than #{MAX_DEPTH} levels, not drawn: the table below has them."]
          if @layout.narrowed?
            notes << "Some requires' children add up to more than the require itself (medians taken over " \
                     "different repeats): they are drawn narrowed to fit beneath it."
          end
          notes
        end

        private

        # Every gem drawn, the widest (summed over its boxes) first: the colours go to the gems that weigh most.
        def gems
          widths = Hash.new(0)
          @boxes.each { |box| widths[box.item.gem] += box.width if box.kind == :node }
          widths.sort_by { |gem, width| [-width, gem.to_s] }.map(&:first)
        end

        def tree_height = (@layout.depth + 1) * ROW

        def height = tree_height + 12 + (legend_rows * LEGEND_ROW)

        def draw(box)
          x = box.x.round(1)
          y = box.depth * ROW
          width = box.width.round(1)
          rect = tag(:rect, tag(:title, h(tooltip(box))), class: "icicle-#{box.kind}", x: x, y: y, width: width,
                                                          height: ROW - 1, fill: fill(box), stroke: "#fff",
                                                          stroke_width: 0.5)
          text = label(box)
          return rect unless text

          rect + tag(:text, h(text), x: (x + PAD).round(1), y: y + 15, pointer_events: "none")
        end

        def fill(box)
          case box.kind
          when :total then "#cfd8dc"
          when :hidden then GemColors::HIDDEN
          else @colors[box.item.gem]
          end
        end

        # The longest of the box's labels that fits, else its name cut short, else nothing.
        def label(box)
          room = ((box.width - (2 * PAD)) / CHAR_WIDTH).floor
          name, figure = label_parts(box)
          return if name.nil? || room < 4

          ["#{name} #{figure}", name].find { |text| text.length <= room } || "#{name[0, room - 1]}…"
        end

        def label_parts(box)
          case box.kind
          when :total then ["Total", mib(box.item.rss_kb)]
          when :node then [box.item.name.to_s, mib(box.item.rss_kb)]
          end
        end

        def tooltip(box)
          case box.kind
          when :total then total_tooltip(box.item)
          when :hidden then "#{plural(box.item['count'].to_i, 'require')} under the cutoff: #{mib(box.item['rss_kb'])}"
          else node_tooltip(box.item)
          end
        end

        def total_tooltip(total)
          "Total after the boot: #{mib(total.rss_kb)}#{interval(total.ci)}\n" \
            "Ruby itself #{mib(total.baseline_kb)}; the boot added #{mib(total.growth_kb)}"
        end

        def node_tooltip(node)
          lines = ["#{node.name}: #{mib(node.rss_kb)}#{interval(node.ci)}" \
                   "#{' — uncertain: the interval includes zero' if node.uncertain}",
                   "self #{mib(node.self_kb)} · gem #{node.gem || 'none (Ruby itself)'}"]
          lines << node.file if node.file
          also = Array(node.also_required_by)
          unless also.empty?
            more = also.size > ALSO_SHOWN ? ", and #{also.size - ALSO_SHOWN} more" : ""
            lines << "also required by: #{also.first(ALSO_SHOWN).join(', ')}#{more}"
          end
          lines.join("\n")
        end

        def interval(bounds)
          bounds ? " (95% interval #{mib_range(*bounds)} MiB)" : ""
        end

        # Each gem drawn, then the grey of hidden requires if any is drawn.
        def legend_entries
          @legend_entries ||= begin
            coloured, others = gems.partition { |gem| !@colors.other?(gem) }
            entries = coloured.map { |gem| [gem || "Ruby itself", @colors[gem]] }
            entries << ["#{others.size} other gems (hover for names)", GemColors::OTHER] unless others.empty?
            entries << ["under the cutoff", GemColors::HIDDEN] if @boxes.any? { |box| box.kind == :hidden }
            entries
          end
        end

        def legend_column
          LEGEND_SWATCH + 8 + (legend_entries.map { |name, _| name.length }.max.to_i * CHAR_WIDTH).ceil
        end

        def legend_columns = [WIDTH / legend_column, 1].max

        def legend_rows = (legend_entries.size.to_f / legend_columns).ceil

        def legend
          legend_entries.each_with_index.map do |(name, color), i|
            x = i % legend_columns * legend_column
            y = tree_height + 12 + (i / legend_columns * LEGEND_ROW)
            tag(:g, tag(:rect, x: x, y: y, width: 12, height: 12, fill: color, stroke: "#999", stroke_width: 0.5) +
                    tag(:text, h(name), x: x + LEGEND_SWATCH, y: y + 10), class: "legend-entry")
          end
        end
      end
    end
  end
end

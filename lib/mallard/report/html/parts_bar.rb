# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The parts of a boot's RSS as one stacked horizontal bar in inline SVG: file-backed, Ruby heap, malloc and
      # the unexplained rest, each as wide as its KiB, labelled where the label fits and named in a legend below.
      # A part below zero (a remainder can be) or not read (malloc, on some allocators) is not drawn; the table
      # beside the bar has every figure.
      class PartsBar
        include SvgTag
        include Formatting

        WIDTH = 760
        BAR = 32
        PAD = 6
        CHAR_WIDTH = 7.2 # of a 12 px system-ui label, generously
        LEGEND_TOP = BAR + 14
        SWATCH = 18
        # [member, name, fill]: light tints, so black labels stay legible on them.
        PARTS = [[:file_kb, "file-backed", "#9ecae1"], [:heap_kb, "Ruby heap", "#fdae6b"],
                 [:malloc_kb, "malloc", "#a1d99b"], [:unexplained_kb, "unexplained", "#bcbddc"]].freeze

        # @param parts [Summary::BootParts]
        # @param rss_kb [Numeric] the whole the parts split
        def initialize(parts, rss_kb:)
          @segments = PARTS.filter_map do |member, name, fill|
            kb = parts[member]
            [name, kb, fill] if kb&.positive?
          end
          whole = [rss_kb.to_f, @segments.sum { |_, kb, _| kb }].max
          @scale = whole.positive? ? WIDTH / whole : 0
        end

        def title = "Where the boot's RSS is"

        def to_html
          content = ["", tag(:figcaption, h(title)), to_svg, ""].join("\n")
          Safe.new(tag(:figure, content, class: "chart", id: "chart-parts"))
        end

        def to_svg
          body = [tag(:title, h(title)), *bars, *legend].join("\n")
          Safe.new(tag(:svg, "\n#{body}\n", role: "img", aria_label: "#{title}: #{summary_text}",
                                            viewBox: "0 0 #{WIDTH} #{LEGEND_TOP + 16}", width: WIDTH,
                                            height: LEGEND_TOP + 16, font_family: "system-ui, sans-serif",
                                            font_size: 12))
        end

        private

        def summary_text = @segments.map { |name, kb, _| "#{name} #{mib(kb)}" }.join(", ")

        def bars
          x = 0.0
          @segments.map do |name, kb, fill|
            width = kb * @scale
            tooltip = tag(:title, h("#{name}: #{mib(kb)}"))
            rect = tag(:rect, tooltip, x: x.round(1), y: 0, width: width.round(1), height: BAR, fill: fill,
                                       stroke: "#fff")
            text = ["#{name} #{mib(kb)}", mib(kb)].find { |label| (label.length * CHAR_WIDTH) + (2 * PAD) <= width }
            rect += tag(:text, h(text), x: (x + PAD).round(1), y: 21, pointer_events: "none") if text
            x += width
            rect
          end
        end

        def legend
          x = 0
          @segments.map do |name, _, fill|
            entry = tag(:rect, x: x, y: LEGEND_TOP, width: 12, height: 12, fill: fill) +
                    tag(:text, h(name), x: x + SWATCH, y: LEGEND_TOP + 10)
            x += SWATCH + (name.length * CHAR_WIDTH).ceil + 24
            entry
          end
        end
      end
    end
  end
end

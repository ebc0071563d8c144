# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The memory ledger as a stacked area chart in inline SVG, on the run's time axis: each part of RSS (summed
      # over the processes) a band on top of the one before, so the top edge is RSS and a band that widens is the
      # part that grows. The verdict sentence is the caption's note (alone, with fewer than two readings to draw). A
      # part below zero (the unexplained rest can be, by a reading's rounding) or not read is drawn as nothing.
      class LedgerChart
        include SvgTag
        include Formatting

        WIDTH = 760
        LEFT = 64
        RIGHT = WIDTH - 16
        TOP = 12
        BOTTOM = TOP + 220
        LEGEND_TOP = BOTTOM + 34
        LEGEND_ROW = 18
        HEIGHT = LEGEND_TOP + (2 * LEGEND_ROW)
        SWATCH = 18
        CHAR_WIDTH = 7.2
        FILLS = { Analysis::LedgerParts::LIVE => "#fdae6b", Analysis::LedgerParts::FREE_SLOTS => "#fdd0a2",
                  Analysis::LedgerParts::TRANSIENT => "#fee6ce", Analysis::LedgerParts::MALLOC => "#74c476",
                  Analysis::LedgerParts::HELD => "#c7e9c0", Analysis::LedgerParts::FILE => "#9ecae1",
                  Analysis::LedgerParts::STACKS => "#6baed6", Analysis::LedgerParts::YJIT => "#fa9fb5",
                  Analysis::LedgerParts::UNEXPLAINED => "#bcbddc" }.freeze

        # @param ledger [Summary::Ledger, nil]
        # @param sentence [String, nil] the ledger's verdict (SoakSentences#ledger)
        # @param pss [String, nil] what several processes take together (SoakSentences#ledger_pss)
        def initialize(ledger, sentence: nil, pss: nil)
          @ledger = ledger
          @sentence = sentence
          @pss = pss
          @points = Array(ledger&.series)
          # Parts never read (YJIT off, malloc on mimalloc) are left out of the bands and the legend alike.
          @drawn = Array(ledger&.names).each_with_index.reject do |_, index|
            @points.all? { |point| point[index + 1].nil? }
          end
        end

        def title = "Where the memory is, over time"

        def to_html
          note = [@sentence, @pss].compact.map { |text| tag(:p, h(text), class: "note") }.join("\n")
          return Safe.new(note) if @points.size < 2

          Safe.new(tag(:figure, ["", tag(:figcaption, h(title)), to_svg, note, ""].join("\n"), class: "chart",
                                                                                               id: "chart-ledger"))
        end

        def to_svg
          body = [tag(:title, h(title)), *bands, *axes, *legend].join("\n")
          Safe.new(tag(:svg, "\n#{body}\n", role: "img", aria_label: title, viewBox: "0 0 #{WIDTH} #{HEIGHT}",
                                            width: WIDTH, height: HEIGHT,
                                            font_family: "system-ui, sans-serif", font_size: 12))
        end

        private

        # Each part's band: its upper edge left to right, then the one below it right to left.
        def bands
          below = Array.new(@points.size, 0.0)
          @drawn.map do |name, index|
            above = @points.each_with_index.map { |point, i| below[i] + [point[index + 1].to_f, 0.0].max }
            polygon = band(name, above, below)
            below = above
            polygon
          end
        end

        def band(name, above, below)
          outline = @points.each_index.map { |i| xy(i, above[i]) } +
                    @points.each_index.reverse_each.map { |i| xy(i, below[i]) }
          tag(:polygon, tag(:title, h(name)), points: outline.join(" "), fill: FILLS.fetch(name, "#ddd"),
                                              stroke: "#fff", stroke_width: 0.5)
        end

        def axes
          [tag(:line, x1: LEFT, y1: BOTTOM, x2: RIGHT, y2: BOTTOM, stroke: "#333"),
           tag(:line, x1: LEFT, y1: TOP, x2: LEFT, y2: BOTTOM, stroke: "#333"),
           tag(:text, h(mib(top_kb)), x: LEFT - 4, y: TOP + 10, text_anchor: "end"),
           tag(:text, "0", x: LEFT - 4, y: BOTTOM, text_anchor: "end"),
           tag(:text, h(format("%g s", @points.first[0].round(1))), x: LEFT, y: BOTTOM + 16),
           tag(:text, h(format("%g s", @points.last[0].round(1))), x: RIGHT, y: BOTTOM + 16, text_anchor: "end")]
        end

        def legend
          x = 0
          y = LEGEND_TOP
          @drawn.map do |name, _|
            width = SWATCH + (name.length * CHAR_WIDTH).ceil + 16
            if x + width > WIDTH
              x = 0
              y += LEGEND_ROW
            end
            entry = tag(:rect, x: x, y: y, width: 12, height: 12, fill: FILLS.fetch(name, "#ddd")) +
                    tag(:text, h(name), x: x + SWATCH, y: y + 10)
            x += width
            entry
          end
        end

        def xy(index, kb)
          first = @points.first[0]
          span = [@points.last[0] - first, 1e-9].max
          x = LEFT + ((@points[index][0] - first) / span * (RIGHT - LEFT))
          y = BOTTOM - (kb / top_kb * (BOTTOM - TOP))
          "#{x.round(1)},#{y.round(1)}"
        end

        def top_kb
          @top_kb ||= [@points.map { |point| point.drop(1).sum { |kb| [kb.to_f, 0.0].max } }.max, 1.0].max
        end
      end
    end
  end
end

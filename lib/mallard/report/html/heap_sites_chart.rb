# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The sites that retain the most bytes as horizontal bars in inline SVG, largest first, each as long as its
      # bytes on one scale (the largest spans the plot), its class, gem and site above it and its size at its end.
      # Significant sites are drawn in a stronger colour and named so in the legend. A site's full name and
      # figures are its tooltip; the sites table below holds every site.
      class HeapSitesChart
        include SvgTag
        include Formatting
        include HeapCells

        TOP = 15
        WIDTH = 760
        PLOT = 640 # the longest bar; the rest of the row holds its size
        ROW = 36
        BAR = 14
        LABEL_Y = 11 # a row's label, above its bar
        CHAR_WIDTH = 6.2 # of an 11 px system-ui label, generously: a label must stay inside the drawing
        SIGNIFICANT = "#d55e00"
        OTHER = "#56b4e9"

        # @param summary [Summary::Heap] its sites sorted by retained bytes, as the analysis gives them
        def initialize(summary)
          @summary = summary
          @sites = summary.sites.first(TOP)
          largest = @sites.map { |site| site.bytes.to_f }.max.to_f
          @scale = largest.positive? ? PLOT / largest : 0
        end

        def title
          return "The site that retains the most bytes" if @sites.size == 1

          "The #{@sites.size} sites that retain the most bytes"
        end

        def to_html
          note = tag(:p, h("Length: retained bytes, on one scale from the largest. Hover over a bar for its " \
                           "site in full; the table below has every site."), class: "note")
          content = ["", tag(:figcaption, h(title)), to_svg, note, ""].join("\n")
          Safe.new(tag(:figure, content, class: "chart", id: "chart-sites"))
        end

        def to_svg
          body = [tag(:title, h(title)), *@sites.each_with_index.map { |site, i| row(site, i * ROW) }, *legend]
          Safe.new(tag(:svg, "\n#{body.join("\n")}\n", role: "img", aria_label: title,
                                                       viewBox: "0 0 #{WIDTH} #{height}", width: WIDTH, height: height,
                                                       font_family: "system-ui, sans-serif", font_size: 11))
        end

        private

        def height = (@sites.size * ROW) + 24

        def row(site, y)
          width = (site.bytes.to_f * @scale).round(1)
          bar = tag(:rect, tag(:title, h(tooltip(site))), class: "site-bar", x: 0, y: y + LABEL_Y + 4, width: width,
                                                          height: BAR, fill: site.significant ? SIGNIFICANT : OTHER)
          figure = tag(:text, h(byte_size(site.bytes)), x: (width + 6).round(1), y: y + LABEL_Y + 15)
          [tag(:text, h(label(site)), x: 0, y: y + LABEL_Y), bar, figure].join
        end

        # "class · gem — site", the site cut from its start (its file's tail and line tell it apart) to fit.
        # Class and gem names are cut at their end, so a long one leaves the site room.
        def label(site)
          head = "#{cut(outside(site.class), 40)} · #{cut(outside(site.gem), 24)} — "
          room = (WIDTH / CHAR_WIDTH).floor - head.length
          name = outside(site.site)
          name = "…#{name[-(room - 1)..]}" if name.length > room
          "#{head}#{name}"
        end

        def cut(text, room) = text.length > room ? "#{text[0, room - 1]}…" : text

        def tooltip(site)
          "#{outside(site.site)}\n#{outside(site.class)} · gem #{outside(site.gem)}\n#{count(site.count)} objects, " \
            "#{byte_size(site.bytes)}#{' — significant' if site.significant}"
        end

        def legend
          y = (@sites.size * ROW) + 8
          [["significant: #{byte_size(@summary.significant_bytes)} or more", SIGNIFICANT], ["below that", OTHER]]
            .each_with_index.map do |(name, fill), i|
            x = i * 300
            tag(:g, tag(:rect, x: x, y: y, width: 12, height: 12, fill: fill) +
                    tag(:text, h(name), x: x + 18, y: y + 10), class: "legend-entry")
          end
        end
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A line chart drawn as inline SVG: nice ticks on both axes, axis titles with units, a legend, and
      # optional shaded spans (warm-up). #to_html adds a caption and a table of the same numbers, or, when
      # there is nothing to draw, why (absent: a series that was not measured is not a line of zeros).
      class SvgChart
        include SvgTag
        include Formatting

        # thin: drawn lighter, without markers or a legend entry (the other repeats of a configuration).
        # dots: a dot per point and no line (events such as GC pauses: a line between them means nothing).
        Series = Struct.new(:name, :points, :style, :thin, :dots, keyword_init: true)
        Axis = Struct.new(:label, :unit) do
          def title = "#{label} (#{unit})"
        end
        Band = Struct.new(:from, :to, :label)

        WIDTH = 760
        LEFT = 72
        RIGHT = WIDTH - 24
        TOP = 16
        BOTTOM = TOP + 250
        LEGEND_TOP = BOTTOM + 62 # below the tick labels and the x-axis title
        LEGEND_ROW = 22
        LEGEND_SWATCH = 44 # the line sample and the gap before its label
        CHAR_WIDTH = 6.8 # of a 12 px system-ui label, generously: a label must not run into the next
        MARKERS_PER_SERIES = 8
        MAX_POINTS = 600 # an hour at 0.5 s is 7,200 samples; more points than pixels only bloat the file
        THIN_NOTE = "thin lines: further repeats"

        attr_reader :id, :title, :x, :y, :series, :notes, :absent

        # @param id [String] unique in the page: the hatch pattern is referenced by it
        # @param absent [String, nil] why there is nothing to draw, shown instead of the chart when so
        # @param x_max [Numeric, nil] the end of the x axis at least (charts of one run share the run's time axis)
        # @param from_zero [Boolean] false: the y axis spans the data (growth of a few MiB on hundreds stays visible)
        #   and its title says it does not start at 0
        def initialize(id:, title:, x:, y:, series:, bands: [], notes: [], absent: nil, x_max: nil, from_zero: true)
          @id = id
          @from_zero = from_zero
          @x_max = x_max
          @title = title
          @x = x
          @y = y
          @series = series.reject { |s| Array(s.points).empty? }.map { |s| thinned(s) }
          @bands = bands
          @notes = notes + thinning_note
          @absent = absent
        end

        def empty? = @series.empty?

        def to_html = ChartView.new(self).to_s

        def to_svg
          body = [tag(:title, h(@title)), defs, bands, grid, axes, lines, markers, legend].flatten.join("\n")
          Safe.new(tag(:svg, "\n#{body}\n", **svg_attributes))
        end

        private

        def svg_attributes
          { role: "img", aria_label: "#{@title}: #{@y.label} against #{@x.label.downcase}",
            viewBox: "0 0 #{WIDTH} #{height}", width: WIDTH, height: height,
            font_family: "system-ui, sans-serif", font_size: 12 }
        end

        def height
          LEGEND_TOP + ((legend_entries.size.to_f / legend_columns).ceil * LEGEND_ROW)
        end

        def x_scale
          @x_scale ||= NiceScale.new(0, [values(0).max, @x_max.to_f].max, ticks: 8)
        end

        def y_scale
          low = values(1).min
          @y_scale ||= NiceScale.new(@from_zero ? [low, 0].min : low, values(1).max)
        end

        def y_title
          y_scale.min.positive? ? "#{@y.title}, axis not from 0" : @y.title
        end

        def values(index) = @series.flat_map { |s| s.points.map { |point| point[index] } }

        def px(value)
          (LEFT + ((value - x_scale.min) / (x_scale.max - x_scale.min) * (RIGHT - LEFT))).round(1)
        end

        def py(value)
          (BOTTOM - ((value - y_scale.min) / (y_scale.max - y_scale.min) * (BOTTOM - TOP))).round(1)
        end

        def hatch = "url(##{@id}-hatch)"

        # Diagonal hatching reads as "shaded" in grey-scale print as well as on screen.
        def defs
          stripes = tag(:rect, width: 6, height: 6, fill: "#f1f1f1") +
                    tag(:line, x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#c8c8c8", stroke_width: 2)
          tag(:defs, tag(:pattern, stripes, id: "#{@id}-hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse",
                                            patternTransform: "rotate(45)"))
        end

        def bands
          @bands.filter_map do |band|
            from, to = [band.from, band.to].map { |t| px(t.clamp(x_scale.min, x_scale.max)) }
            next if to <= from

            tag(:rect, tag(:title, h(band.label)), x: from, y: TOP, width: (to - from).round(1), height: BOTTOM - TOP,
                                                   fill: hatch)
          end
        end

        def grid
          y_scale.ticks.map do |tick|
            tag(:line, x1: LEFT, x2: RIGHT, y1: py(tick), y2: py(tick), stroke: "#e2e2e2") +
              tag(:text, label(y_scale, tick), x: LEFT - 6, y: py(tick) + 4, text_anchor: "end")
          end + x_scale.ticks.map do |tick|
            tag(:line, x1: px(tick), x2: px(tick), y1: BOTTOM, y2: BOTTOM + 5, stroke: "#555") +
              tag(:text, label(x_scale, tick), x: px(tick), y: BOTTOM + 19, text_anchor: "middle")
          end
        end

        def label(scale, tick)
          grouped(scale.label(tick))
        end

        def axes
          middle = ((TOP + BOTTOM) / 2.0).round(1)
          [tag(:path, d: "M#{LEFT},#{TOP}V#{BOTTOM}H#{RIGHT}", fill: "none", stroke: "#555"),
           tag(:text, h(@x.title), x: ((LEFT + RIGHT) / 2.0).round(1), y: BOTTOM + 40, text_anchor: "middle",
                                   font_weight: 600),
           tag(:text, h(y_title), transform: "translate(16 #{middle}) rotate(-90)", text_anchor: "middle",
                                  font_weight: 600)]
        end

        def lines
          @series.reject(&:dots).map do |s|
            path = s.points.each_with_index.map { |(x, y), i| "#{i.zero? ? 'M' : 'L'}#{px(x)},#{py(y)}" }.join
            SeriesStyle.new(s.style).line(path, thin: s.thin)
          end
        end

        # A few markers per line, not one per sample: enough to tell lines apart without a smear.
        def markers
          @series.reject(&:thin).flat_map do |s|
            next dots(s) if s.dots

            every = [(s.points.size.to_f / MARKERS_PER_SERIES).ceil, 1].max
            style = SeriesStyle.new(s.style)
            s.points.each_with_index.select { |_, i| ((i + s.style) % every).zero? }
             .map { |(x, y), _| style.marker(px(x), py(y)) }
          end
        end

        def dots(series)
          style = SeriesStyle.new(series.style)
          series.points.map { |x, y| style.dot(px(x), py(y)) }
        end

        # Series, then shaded spans, then a word on thin lines; laid out in as many columns as fit.
        def legend_entries
          @legend_entries ||= @series.reject(&:thin) + @bands + (@series.any?(&:thin) ? [THIN_NOTE] : [])
        end

        def legend_column
          longest = legend_entries.map { |entry| entry_label(entry).length }.max.to_i
          (LEGEND_SWATCH + (longest * CHAR_WIDTH) + 24).ceil
        end

        def legend_columns = [(RIGHT - LEFT) / legend_column, 1].max

        def legend
          legend_entries.each_with_index.map do |entry, i|
            x = LEFT + (i % legend_columns * legend_column)
            y = LEGEND_TOP + (i / legend_columns * LEGEND_ROW)
            text = tag(:text, h(entry_label(entry)), x: entry.is_a?(String) ? x : x + LEGEND_SWATCH, y: y + 4)
            tag(:g, swatch(entry, x, y) + text, class: "legend-entry")
          end
        end

        def entry_label(entry)
          case entry
          when Band then entry.label
          when Series then entry.name
          else entry
          end
        end

        def swatch(entry, x, y)
          case entry
          when Series
            style = SeriesStyle.new(entry.style)
            entry.dots ? style.dot(x + 18, y) : style.line("M#{x},#{y}H#{x + 36}") + style.marker(x + 18, y)
          when Band then tag(:rect, x: x, y: y - 7, width: 36, height: 14, fill: hatch, stroke: "#bbb")
          else ""
          end
        end

        def thinned(series)
          every = (series.points.size.to_f / MAX_POINTS).ceil
          return series if every <= 1

          @thinned_every = [@thinned_every.to_i, every].max
          points = series.points.each_slice(every).map(&:first)
          points << series.points.last unless points.last == series.points.last
          series.dup.tap { |s| s.points = points }
        end

        def thinning_note
          @thinned_every ? ["A long run: one sample in #{@thinned_every} is drawn and tabled."] : []
        end
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The last dump's objects by generation (the GC count when each was allocated) as columns in inline SVG: the
      # bytes still alive per bucket of generations, the oldest on the left, with the buckets that fall in the
      # window (allocated after dump A, up to dump B) shaded and coloured. A tall column in the window is memory
      # the app allocated while it served and kept; the buckets themselves are tabled beneath.
      class HeapGenerationsChart
        include SvgTag
        include Formatting
        include HeapCells

        WIDTH = 760
        LEFT = 72
        RIGHT = WIDTH - 24
        TOP = 16
        BOTTOM = TOP + 200
        LEGEND_TOP = BOTTOM + 58
        X_LABELS = 10
        IN_WINDOW = "#d55e00"
        OUTSIDE = "#9ecae1"
        BAND = "#fdebd9"
        UNITS = [[1_048_576, "MiB"], [1024, "KiB"], [1, "bytes"]].freeze

        # Each bucket: its generations (from, nil for the first, whose start the summary does not say; to), whether it
        # overlaps the window, and the summary's figures.
        Bucket = Struct.new(:from, :to, :in_window, :generation) do
          def label
            return "generation #{to}" if from == to
            return "generations up to #{to}" unless from

            "generations #{from} to #{to}"
          end
        end

        # @param summary [Summary::Heap] one with generations
        def initialize(summary)
          @summary = summary
          previous = nil
          @buckets = summary.generations.map do |generation|
            newest = generation.generation
            bucket = Bucket.new(previous && (previous + 1), newest, summary.in_window?(previous, newest), generation)
            previous = newest
            bucket
          end
          @divisor, @unit = UNITS.find { |bytes, _| largest >= bytes } || UNITS.last
          @scale = NiceScale.new(0, largest / @divisor)
        end

        def title = "Dump C's live objects by generation: bytes per bucket of generations"

        def to_html
          content = ["", tag(:figcaption, h(title)), to_svg, tag(:p, h(note), class: "note"),
                     HeapGenerationsTable.new(@buckets).to_s, ""].join("\n")
          Safe.new(tag(:figure, content, class: "chart", id: "chart-generations"))
        end

        def to_svg
          body = [tag(:title, h(title)), band, grid, *columns, axes, *legend].compact.join("\n")
          Safe.new(tag(:svg, "\n#{body}\n", role: "img", aria_label: "#{title}; the window highlighted",
                                            viewBox: "0 0 #{WIDTH} #{LEGEND_TOP + 16}", width: WIDTH,
                                            height: LEGEND_TOP + 16, font_family: "system-ui, sans-serif",
                                            font_size: 12))
        end

        def note
          window = HeapSentences.new(@summary).window_words || "not known"
          "A generation is the GC count when an object was allocated. The window A→B (#{window}) is shaded: its " \
            "buckets are what the retained figures count, a bucket at its edge only in part. Hover over a column " \
            "for its figures."
        end

        private

        def largest = @buckets.map { |bucket| bucket.generation.bytes.to_f }.max.to_f

        def slot = (RIGHT - LEFT).to_f / [@buckets.size, 1].max

        def x_of(index) = (LEFT + (index * slot)).round(1)

        def py(value) = (BOTTOM - (value / @scale.max * (BOTTOM - TOP))).round(1)

        def band
          first = @buckets.index(&:in_window)
          return unless first

          last = @buckets.rindex(&:in_window)
          tag(:rect, tag(:title, h("the window A→B")), class: "window", x: x_of(first), y: TOP,
                                                       width: (x_of(last + 1) - x_of(first)).round(1),
                                                       height: BOTTOM - TOP, fill: BAND)
        end

        def columns
          @buckets.each_with_index.map do |bucket, i|
            top = py(bucket.generation.bytes.to_f / @divisor)
            tag(:rect, tag(:title, h(tooltip(bucket))), class: bucket.in_window ? "generation in-window" : "generation",
                                                        x: (x_of(i) + (slot * 0.1)).round(1), y: top,
                                                        width: (slot * 0.8).round(1), height: (BOTTOM - top).round(1),
                                                        fill: bucket.in_window ? IN_WINDOW : OUTSIDE)
          end
        end

        def grid = y_ticks + x_labels

        def y_ticks
          @scale.ticks.map do |tick|
            tag(:line, x1: LEFT, x2: RIGHT, y1: py(tick), y2: py(tick), stroke: "#e2e2e2") +
              tag(:text, grouped(@scale.label(tick)), x: LEFT - 6, y: py(tick) + 4, text_anchor: "end")
          end
        end

        # Some buckets' newest generation beneath them: about X_LABELS, evenly spaced.
        def x_labels
          every = [(@buckets.size.to_f / X_LABELS).ceil, 1].max
          @buckets.each_with_index.select { |_, i| (i % every).zero? }.map do |bucket, i|
            tag(:text, h(bucket.to), x: (x_of(i) + (slot / 2)).round(1), y: BOTTOM + 18, text_anchor: "middle")
          end
        end

        def axes
          middle = ((TOP + BOTTOM) / 2.0).round(1)
          [tag(:path, d: "M#{LEFT},#{TOP}V#{BOTTOM}H#{RIGHT}", fill: "none", stroke: "#555"),
           tag(:text, "Generation (the newest in each bucket)", x: ((LEFT + RIGHT) / 2.0).round(1), y: BOTTOM + 40,
                                                                text_anchor: "middle", font_weight: 600),
           tag(:text, h("Alive in dump C (#{@unit})"), transform: "translate(16 #{middle}) rotate(-90)",
                                                       text_anchor: "middle", font_weight: 600)].join("\n")
        end

        def legend
          [["in the window A→B", IN_WINDOW], ["before A, or after B", OUTSIDE]].each_with_index.map do |(name, fill), i|
            x = LEFT + (i * 260)
            tag(:g, tag(:rect, x: x, y: LEGEND_TOP, width: 12, height: 12, fill: fill) +
                    tag(:text, h(name), x: x + 18, y: LEGEND_TOP + 10), class: "legend-entry")
          end
        end

        def tooltip(bucket)
          "#{bucket.label}#{' (in the window)' if bucket.in_window}: " \
            "#{count(bucket.generation.count)} objects, #{byte_size(bucket.generation.bytes)}"
        end
      end
    end
  end
end

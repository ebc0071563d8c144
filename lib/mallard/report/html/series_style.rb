# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # How one series is drawn. Colour, dash pattern and marker all change from one series to the next,
      # so lines stay apart when printed in grey or seen without colour vision.
      class SeriesStyle
        include SvgTag

        # Okabe–Ito: distinguishable with the common colour-vision deficiencies.
        COLORS = %w[#0072b2 #d55e00 #009e73 #cc79a7 #e69f00 #56b4e9 #000000].freeze
        DASHES = [nil, "9 4", "2 3", "10 3 2 3", "5 5", "14 3 3 3 3 3"].freeze
        # Marker outlines around (0, 0), moved into place with a transform.
        SHAPES = { circle: "M-4,0a4,4 0 1,0 8,0a4,4 0 1,0 -8,0", square: "M-4,-4h8v8h-8Z",
                   triangle: "M0,-5l5,9h-10Z", diamond: "M0,-5l5,5l-5,5l-5,-5Z", plus: "M-4,0h8M0,-4v8",
                   cross: "M-4,-4l8,8M-4,4l8,-8" }.freeze
        # Filled, hollow and stroked shapes alternate, so neighbouring series differ in more than outline.
        HOLLOW = %i[square diamond].freeze
        STROKED = %i[plus cross].freeze

        def initialize(index)
          @color = COLORS[index % COLORS.size]
          @dash = DASHES[index % DASHES.size]
          @shape = SHAPES.keys[index % SHAPES.size]
        end

        def line(path, thin: false)
          tag(:path, d: path, fill: "none", stroke: @color, stroke_width: thin ? 1 : 2, stroke_dasharray: @dash,
                     stroke_opacity: (0.7 if thin), stroke_linejoin: "round")
        end

        # One event of many: small and see-through, so where they crowd the colour deepens.
        def dot(x, y)
          tag(:circle, cx: x, cy: y, r: 2.5, fill: @color, fill_opacity: 0.6, class: "dot")
        end

        def marker(x, y)
          fill = @color
          fill = "#fff" if HOLLOW.include?(@shape)
          fill = "none" if STROKED.include?(@shape)
          tag(:path, d: SHAPES[@shape], transform: "translate(#{x} #{y})", fill: fill, stroke: @color,
                     stroke_width: fill == "none" ? 2 : 1.5)
        end
      end
    end
  end
end

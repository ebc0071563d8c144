# frozen_string_literal: true

require "zlib"

module Mallard
  module Report
    class Html
      # A fill colour per gem for the icicle chart. Only so many tints can be told apart at a glance, so the gems
      # that weigh most get one each and the rest share one ("other gems"): given in order of weight, the first
      # PALETTE.size names are coloured. Each colour comes from a hash of the gem's name, so a gem keeps its colour
      # from one report to the next (two boots of one app read alike side by side); where two gems of a report
      # hash to one colour, the later (by name) takes the next free one. Light tints, so the black labels drawn on
      # them stay legible.
      class GemColors
        # Eleven hues far apart (ColorBrewer's Set3 and Pastel families, thinned where two tints were alike);
        # none of them the greys of Ruby itself, of hidden requires or of the other gems, nor the app's yellow.
        PALETTE = %w[#80b1d3 #fb8072 #7fc97f #fdc086 #bc80bd #8dd3c7 #fccde5 #b3de69 #d9a066 #e78ac3
                     #66c2a5].freeze
        # Ruby itself (the baseline has no gem) and the app's own files are always the same, so they are found
        # at a glance.
        # Files of no gem and of no app ("other") share the other gems' colour.
        OTHER = "#d7ccc8"
        FIXED = { nil => "#b0bec5", "ruby" => "#b0bec5", "app" => "#ffe082", "other" => OTHER }.freeze
        HIDDEN = "#ededed"

        # @param names [Array<String, nil>] every gem the chart draws, the weightiest first
        def initialize(names)
          taken = {}
          @colors = names.uniq.reject { |name| FIXED.key?(name) }.first(PALETTE.size).sort.to_h do |name|
            [name, pick(name, taken)]
          end
        end

        def [](name) = FIXED.fetch(name) { @colors.fetch(name, OTHER) }

        def other?(name) = !FIXED.key?(name) && !@colors.key?(name)

        private

        def slot(name) = Zlib.crc32(name.to_s) % PALETTE.size

        # The name's own slot, else the next free one; once all are taken, its own again.
        def pick(name, taken)
          start = slot(name)
          index = (0...PALETTE.size).map { |step| (start + step) % PALETTE.size }.find { |i| !taken[i] } || start
          taken[index] = true
          PALETTE[index]
        end
      end
    end
  end
end

# frozen_string_literal: true

require "zlib"

module Mallard
  module Report
    class Html
      # A fill colour per gem for the icicle chart. Each gem's colour comes from a hash of its name, so a gem keeps
      # its colour from one report to the next (two boots of one app read alike side by side); where two gems of a
      # report hash to one colour, the later (by name) takes the next free one, so gems stay apart until the
      # palette runs out. Light tints, so the black labels drawn on them stay legible.
      class GemColors
        # Tableau 20's light half and a few more: distinguishable, and none of them the grey of hidden requires.
        PALETTE = %w[#aec7e8 #ffbb78 #98df8a #ff9896 #c5b0d5 #c49c94 #f7b6d2 #dbdb8d #9edae5 #fdd0a2 #c7e9c0
                     #dadaeb #fcbba1 #bcbddc].freeze
        # Ruby itself (the baseline has no gem) and the app's own files are always the same, so they are found
        # at a glance.
        FIXED = { nil => "#b0bec5", "ruby" => "#b0bec5", "app" => "#ffe082", "other" => "#e0e0e0" }.freeze
        HIDDEN = "#ededed"

        # @param names [Array<String, nil>] every gem the chart draws
        def initialize(names)
          taken = {}
          @colors = names.uniq.reject { |name| FIXED.key?(name) }.sort.to_h do |name|
            [name, pick(name, taken)]
          end
        end

        def [](name) = FIXED.fetch(name) { @colors.fetch(name) { PALETTE[slot(name)] } }

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

# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # How the heap views word their cells (sizes are Formatting#byte_size, the window HeapSentences', as in the
      # terminal's heap view): the dumps named A, B and C as the method names them, and outside text (paths, sites,
      # class and gem names) made valid UTF-8. Formatting only.
      module HeapCells
        private

        # A, B, C; a fourth dump (there is none in the method) by its number.
        def dump_name(index) = "ABC"[index] || (index + 1).to_s

        # A path, a site or a name from the app: its bytes as they are, invalid ones shown as \xFF.
        def outside(text) = Text.scrub(text.to_s)
      end
    end
  end
end

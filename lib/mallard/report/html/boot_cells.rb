# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # How the boot tables word their cells: MiB without the unit (the column says it), intervals, the parts of a
      # figure, and the files that also required one. Formatting only.
      module BootCells
        PARTS = %i[file_kb heap_kb malloc_kb unexplained_kb].freeze
        PART_HEADERS = ["file MiB", "heap MiB", "malloc MiB", "unexplained MiB"].freeze
        ALSO_SHOWN = 3

        private

        # KiB as MiB, "—" when not recorded.
        def mebi(kb, decimals = 1)
          kb.nil? ? "—" : format("%.#{decimals}f", kb / 1024.0).sub(/\A-(0\.0+)\z/, '\1') # never "-0.0"
        end

        # An inclusive figure, marked "?" when its interval includes zero.
        def mebi_marked(kb, uncertain, decimals = 1)
          "#{mebi(kb, decimals)}#{' ?' if uncertain}"
        end

        def span(bounds, decimals = 1)
          bounds ? "#{mebi(bounds[0], decimals)} … #{mebi(bounds[1], decimals)}" : "—"
        end

        def part_cells(parts, decimals = 1)
          PARTS.map { |member| mebi(parts&.[](member), decimals) }
        end

        def also(names)
          names = Array(names)
          return "" if names.empty?

          more = names.size > ALSO_SHOWN ? ", and #{names.size - ALSO_SHOWN} more" : ""
          "#{names.first(ALSO_SHOWN).join(', ')}#{more}"
        end
      end
    end
  end
end

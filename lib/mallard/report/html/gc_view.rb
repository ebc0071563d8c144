# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # GC over the measured span, from the agent's GC.stat timeline, summed over the app's processes.
      class GcView < View
        # @param figures [Summary::Gc, nil]
        def initialize(figures)
          super()
          @gc = figures
        end

        template <<~'ERB'
          <%- if @gc -%>
          <%= Figures.new(rows) %>
          <%- else -%>
          <p class="note">The in-app agent recorded no GC figures.</p>
          <%- end -%>
        ERB

        private

        def rows
          [["GC runs", "#{@gc.count} (#{@gc.minor_gc_count} minor, #{@gc.major_gc_count} major)"],
           ["GC time", @gc.time_ms && "#{number(@gc.time_ms / 1000.0, 2)} s"],
           ["Share of wall time", @gc.share_of_wall && "#{number(@gc.share_of_wall * 100, 1)}%"],
           ["Live slots", span(@gc.heap_live_slots)], ["Old objects", span(@gc.old_objects)],
           ["Heap pages", span(@gc.heap_allocated_pages)]]
        end

        def span(level)
          level && "#{count(level.start)} → #{count(level.end)}"
        end
      end
    end
  end
end

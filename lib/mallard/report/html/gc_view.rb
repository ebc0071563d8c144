# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # GC over the measured span and the live set, summed over the app's processes: runs, pauses, causes, GC's
      # share of wall and CPU time, whether major GCs slow as the live set grows, and the RUBY_GC_* settings.
      class GcView < View
        # @param summary [Summary::Soak] its gc and live_set (nil when the agent recorded none)
        def initialize(summary)
          super()
          @gc = summary.gc
          @live_set = summary.live_set
          @sentences = SoakSentences.new(summary)
        end

        template <<~'ERB'
          <%- if @gc -%>
          <%- if @gc.note -%><p class="note"><%= @gc.note %>.</p><%- end -%>
          <%= Figures.new(rows) %>
          <%- unless @sentences.gc.causes.empty? -%>
          <ul class="note causes"><%- @sentences.gc.causes.each do |cause, meaning| -%><li><strong><%= cause %></strong>: <%= meaning %></li><%- end -%></ul>
          <%- end -%>
          <%- unless @sentences.gc_settings.empty? -%>
          <h3>GC settings</h3>
          <ul class="flags"><%- @sentences.gc_settings.each do |line| -%><li><%= line %></li><%- end -%></ul>
          <%- end -%>
          <%- else -%>
          <p class="note">The in-app agent recorded no GC figures.</p>
          <%- end -%>
        ERB

        private

        def rows
          [["GCs", @sentences.gc_runs],
           ["GCs the per-GC timeline lost", (@gc.dropped if @gc.dropped.to_i.positive?)],
           ["GC time", @gc.time_ms && "#{number(@gc.time_ms / 1000.0, 2)} s"],
           ["Share of wall time", percent(@gc.wall_share)], ["Share of CPU time", percent(@gc.cpu_share)],
           ["Pauses", @sentences.gc_pauses], ["Major GCs by cause", counted(@gc.major_by)],
           ["Minor GCs by trigger", counted(@gc.minor_by)],
           ["Major-GC time vs live set", @sentences.gc_correlation], *live_set_rows,
           ["Live slots", span(@gc.heap_live_slots)], ["Old objects", span(@gc.old_objects)],
           ["Heap pages", span(@gc.heap_allocated_pages)]]
        end

        def live_set_rows
          return [] unless @live_set

          [["Live set", [@live_set.verdict, @sentences.live_set_slope, @sentences.live_set_hint].compact.join(" · ")],
           ["Live set judged on", @sentences.live_set_basis]]
        end

        def percent(share) = share && "#{number(share * 100, 1)}%"

        def span(level)
          level && "#{count(level.start)} → #{count(level.end)}"
        end
      end
    end
  end
end

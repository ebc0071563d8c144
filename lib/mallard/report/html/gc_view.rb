# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # GC over the measured span and the live set, summed over the app's processes: runs, pauses, causes, GC's
      # share of wall and CPU time, whether major GCs slow as the live set grows, and the RUBY_GC_* settings.
      class GcView < View
        # @param figures [Summary::Gc, nil]
        # @param live_set [Summary::LiveSet, nil]
        def initialize(figures, live_set = nil)
          super()
          @gc = figures
          @live_set = live_set
        end

        template <<~'ERB'
          <%- if @gc -%>
          <%- if @gc.note -%><p class="note"><%= @gc.note %>.</p><%- end -%>
          <%= Figures.new(rows) %>
          <%- unless @gc.causes.to_h.empty? -%>
          <ul class="note causes"><%- @gc.causes.each do |cause, meaning| -%><li><strong><%= cause %></strong>: <%= meaning %></li><%- end -%></ul>
          <%- end -%>
          <%- unless settings.empty? -%>
          <h3>GC settings</h3>
          <ul class="flags"><%- settings.each do |line| -%><li><%= line %></li><%- end -%></ul>
          <%- end -%>
          <%- else -%>
          <p class="note">The in-app agent recorded no GC figures.</p>
          <%- end -%>
        ERB

        private

        def rows
          [["GC runs", "#{@gc.runs} (#{@gc.minor} minor, #{@gc.major} major)"],
           ["GCs the per-GC timeline lost", (@gc.dropped if @gc.dropped.to_i.positive?)],
           ["GC time", @gc.time_ms && "#{number(@gc.time_ms / 1000.0, 2)} s"],
           ["Share of wall time", percent(@gc.wall_share)], ["Share of CPU time", percent(@gc.cpu_share)],
           ["Pauses", pauses], ["Major GCs by cause", counted(@gc.major_by)],
           ["Minor GCs by trigger", counted(@gc.minor_by)],
           ["Major-GC time vs live set", @gc.major_time_vs_live_set&.sentence], *live_set_rows,
           ["Live slots", span(@gc.heap_live_slots)], ["Old objects", span(@gc.old_objects)],
           ["Heap pages", span(@gc.heap_allocated_pages)]]
        end

        def live_set_rows
          return [] unless @live_set

          slope = @live_set.slope && format("%+.0f %s (95%% CI %+.0f … %+.0f; tolerance %s slots)", @live_set.slope,
                                            @live_set.unit, *@live_set.ci, count(@live_set.tolerance.round))
          [["Live set", [@live_set.verdict, slope].compact.join(" · ")],
           ["Live set judged on", [@live_set.measure, @live_set.note].compact.join(": ")]]
        end

        def pauses
          pause = @gc.pause_ms
          return unless pause&.max

          "p50 #{number(pause.p50, 2)} ms · p99 #{number(pause.p99, 2)} ms · max #{number(pause.max, 2)} ms"
        end

        def percent(share) = share && "#{number(share * 100, 1)}%"

        def settings
          Array(@gc.settings).map do |setting|
            line = "#{setting.name}=#{setting.value}"
            setting.ignored ? "#{line} — #{setting.ignored}" : line
          end
        end

        def span(level)
          level && "#{count(level.start)} → #{count(level.end)}"
        end
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The three dumps: file, size, objects, newest generation, when each was taken and how long writing it took;
      # that they hold the app's data; and how the app answered mallard while they were being written.
      class HeapDumpsView < View
        include HeapCells

        # @param summary [Summary::Heap]
        def initialize(summary)
          super()
          @sentences = HeapSentences.new(summary)
          @dumps = summary.dumps
          @latency = summary.latency
          @wait = summary.wait
        end

        template <<~'ERB'
          <p class="warning"><strong>Sensitive files.</strong> <%= HeapSentences::DATA_WARNING %></p>
          <div class="wide">
          <table class="heap-dumps">
          <thead><tr><th scope="col">Dump</th><th scope="col">File</th><th scope="col">Size</th>
          <th scope="col">Objects</th><th scope="col">Newest generation</th><th scope="col">Taken at</th>
          <th scope="col">Written in</th><th scope="col">App's RSS then</th></tr></thead>
          <tbody>
          <%- @dumps.each_with_index do |dump, index| -%>
          <tr><th scope="row"><%= dump_name(index) %></th><td><code><%= outside(dump.path) %></code></td>
          <td class="num"><%= byte_size(dump.bytes) %></td><td class="num"><%= count(dump.objects) %></td>
          <td class="num"><%= count(dump.max_generation) %></td><td><%= taken(dump.taken_at) %></td>
          <td class="num"><%= seconds(dump.dump_s) %></td><td class="num"><%= rss(dump) %></td></tr>
          <%- end -%>
          </tbody>
          </table>
          </div>
          <%- if @wait && (@wait.waited_s.to_f >= 0.1 || @wait.gave_up) -%>
          <%= Figures.new(wait_rows) %>
          <%- end -%>
          <%- if @latency -%>
          <h3>The app while the dumps were taken</h3>
          <p>Each dump is written by a forked copy of the app, so the app keeps serving; mallard timed its own
          requests to <code><%= outside(@latency.path.to_s) %></code>, one at a time, while a dump was taken and
          outside the dumps under the same load (the baseline).</p>
          <%= Figures.new(latency_rows) %>
          <%- end -%>
        ERB

        private

        # Seconds into the run (mallard's own dumps), or as the summary gives it (a dump file's time).
        def taken(value)
          case value
          when nil then "—"
          when Numeric then "#{number(value, 1)} s into the run"
          else outside(value)
          end
        end

        def seconds(value) = value ? "#{number(value, 1)} s" : "—"

        def rss(dump)
          return "—" unless dump.rss_kb.to_i.positive? && dump.bytes

          "#{mib(dump.rss_kb)} (dump #{number(dump.bytes / 1024.0 / dump.rss_kb, 1)}×)"
        end

        def wait_rows
          [["Waited", @wait.waited_s && "#{number(@wait.waited_s, 1)} s after the load, for the dumps it outlasted"],
           ["Stopped", @wait.gave_up]]
        end

        def latency_rows
          [["During dumps", @sentences.probe(@latency.during)], ["Outside dumps", @sentences.probe(@latency.outside)]]
        end
      end
    end
  end
end

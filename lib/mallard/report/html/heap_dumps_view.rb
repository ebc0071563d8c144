# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The three dumps: file, size, objects, newest generation, when each was taken and how long writing it took;
      # that they hold the app's data; and how the app answered mallard while they were being written.
      class HeapDumpsView < View
        include HeapCells

        DATA_WARNING = "These dump files hold the app's data: every string in its heap, which can include " \
                       "passwords, tokens, keys and personal data. This report shows only sizes and allocation " \
                       "sites from them, never a value, and mallard writes its own dumps mode 0600; share, copy " \
                       "and keep them with care, and delete them when done."

        # @param summary [Summary::Heap]
        def initialize(summary)
          super()
          @dumps = summary.dumps
          @latency = summary.latency
        end

        template <<~'ERB'
          <p class="warning"><strong>Sensitive files.</strong> <%= DATA_WARNING %></p>
          <div class="wide">
          <table class="heap-dumps">
          <thead><tr><th scope="col">Dump</th><th scope="col">File</th><th scope="col">Size</th>
          <th scope="col">Objects</th><th scope="col">Newest generation</th><th scope="col">Taken at</th>
          <th scope="col">Written in</th></tr></thead>
          <tbody>
          <%- @dumps.each_with_index do |dump, index| -%>
          <tr><th scope="row"><%= dump_name(index) %></th><td><code><%= outside(dump.path) %></code></td>
          <td class="num"><%= byte_size(dump.bytes) %></td><td class="num"><%= count(dump.objects) %></td>
          <td class="num"><%= count(dump.max_generation) %></td><td><%= taken(dump.taken_at) %></td>
          <td class="num"><%= seconds(dump.dump_s) %></td></tr>
          <%- end -%>
          </tbody>
          </table>
          </div>
          <%- if @latency -%>
          <h3>The app while the dumps were written</h3>
          <p>Each dump is written by a forked copy of the app, so the app keeps serving; mallard timed its own
          requests to the app meanwhile, one at a time.</p>
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

        def latency_rows
          [["Requests", count(@latency.requests)], ["Median", @latency.p50_ms && "#{number(@latency.p50_ms, 1)} ms"],
           ["Slowest", @latency.max_ms && "#{number(@latency.max_ms, 1)} ms"], ["Failed", count(@latency.errors)]]
        end
      end
    end
  end
end

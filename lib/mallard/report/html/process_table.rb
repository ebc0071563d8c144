# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Peak and final RSS of each process of the subject (Puma's main process and its workers).
      class ProcessTable < View
        # @param processes [Array<Summary::ProcessMemory>]
        def initialize(processes)
          super()
          @processes = Array(processes)
        end

        template <<~'ERB'
          <table class="processes">
          <thead><tr><th scope="col">PID</th><th scope="col">Role</th><th scope="col">Peak RSS</th>
          <th scope="col">Final RSS</th></tr></thead>
          <tbody>
          <%- @processes.each do |process| -%>
          <tr><td><%= process.pid %></td><td><%= process.role %></td><td><%= mib(process.peak_rss_kb) %></td>
          <td><%= mib(process.final_rss_kb) %></td></tr>
          <%- end -%>
          </tbody>
          </table>
        ERB
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # How the boot was measured: on what (Ruby, allocator, environment), with which cutoff, and the method in
      # words, so a reader can judge the figures or take them again.
      class BootMethodView < View
        # @param summary [Summary::Boot]
        def initialize(summary)
          super()
          @summary = summary
        end

        template <<~'ERB'
          <%= Figures.new(rows) %>
          <%- if @summary.methodology -%>
          <p class="method"><%= @summary.methodology %></p>
          <%- end -%>
        ERB

        private

        def rows
          [["App", @summary.app], ["Booted as", @summary.mode], ["Environment", @summary.environment],
           ["Ruby", @summary.ruby], ["Memory configuration", @summary.allocator || "default"], ["malloc", malloc],
           ["Cutoff", @summary.cutoff_kb && "requires under #{mib(@summary.cutoff_kb)} hidden"],
           ["Probe's own code", @summary.probe_kb && format("%.0f KiB, left out of the baseline", @summary.probe_kb)],
           ["Retained objects", @summary.objects_pass ? "from one more boot, with allocation tracing" : "not measured"]]
        end

        # The allocator, and why its count is missing or partial (an older summary.json said the latter in its note).
        def malloc
          said = [@summary.malloc, @summary.malloc_note, BootSentences.new(@summary).malloc_stopped].compact
          said.join(": ") unless said.empty?
        end
      end
    end
  end
end

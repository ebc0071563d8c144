# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # What was measured, whether the run finished (an ending other than complete is set in the warning
      # colour), and where its files are (a summary that does not carry its run directory, as a boot's, has none).
      class HeaderView < View
        def initialize(kind:, description:, status:, reason:, path:, notes: [])
          super()
          @kind = kind
          @description = description
          @status = status
          @reason = reason
          @path = Text.scrub(path) # the run directory's own path, which may hold any bytes
          @notes = notes
        end

        template <<~'ERB'
          <header class="run-header">
          <h1>mallard <%= @kind %> — <%= @description || "unknown target" %></h1>
          <p class="status <%= @status == "complete" ? "status-ok" : "status-#{@status || "unknown"}" %>">
          Status: <strong><%= @status || "unknown" %></strong><%= ": #{@reason}" if @reason %></p>
          <%- if @path -%>
          <p>Run directory: <code><%= @path %></code></p>
          <%- end -%>
          <%- @notes.each do |note| -%>
          <p class="note warning"><%= note %></p>
          <%- end -%>
          </header>
        ERB
      end
    end
  end
end

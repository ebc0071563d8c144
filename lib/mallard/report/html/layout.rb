# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The page around the sections. The Content-Security-Policy forbids every fetch and every script:
      # the report must stand alone (sent by mail, opened from an artifact store, offline), and even a
      # value that escaped escaping could not run or call out.
      class Layout < View
        def initialize(title:, sections:)
          super()
          @title = title
          @sections = sections
        end

        template <<~'ERB'
          <!DOCTYPE html>
          <html lang="en">
          <head>
          <meta charset="utf-8">
          <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <title><%= @title %></title>
          <style>
          <%= Style::CSS %>
          </style>
          </head>
          <body>
          <main>
          <%- @sections.each do |section| -%>
          <%= section %>
          <%- end -%>
          </main>
          <footer>Written by mallard <%= Mallard::VERSION %>. Self-contained: no scripts, fonts or images are fetched.</footer>
          </body>
          </html>
        ERB
      end
    end
  end
end

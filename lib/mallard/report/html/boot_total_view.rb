# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The whole boot: RSS after it with its interval and the repeats it is the median of, Ruby's own share and
      # what the boot added, objects, and the parts the RSS splits into, drawn as one bar and tabled with what
      # each part is.
      class BootTotalView < View
        include BootCells

        # [member, name, what it is]
        PARTS = [[:file_kb, "file-backed", "code and data mapped from files: forked workers share it"],
                 [:heap_kb, "Ruby heap", "live slots × slot size"],
                 [:malloc_kb, "malloc", "in use beyond Ruby's heap pages"],
                 [:unexplained_kb, "unexplained", "what the others leave of the RSS: free slots, malloc's " \
                                                  "free-but-held memory and bookkeeping, thread stacks, other " \
                                                  "mappings"]].freeze

        # @param summary [Summary::Boot] one with a total
        def initialize(summary)
          super()
          @summary = summary
          @sentences = BootSentences.new(summary)
          @total = summary.total
          @parts = @total.parts
        end

        template <<~'ERB'
          <%= Figures.new(rows) %>
          <%- if @parts -%>
          <%= PartsBar.new(@parts, rss_kb: @total.rss_kb).to_html %>
          <table class="boot-parts">
          <thead><tr><th scope="col">Part</th><th scope="col">MiB</th><th scope="col">What it is</th></tr></thead>
          <tbody>
          <%- PARTS.each do |member, name, what| -%>
          <tr><th scope="row"><%= name %></th><td class="num"><%= part(member) %></td><td><%= about(member, what) %></td></tr>
          <%- end -%>
          <tr><th scope="row">anonymous in all</th><td class="num"><%= mebi(@parts.anon_kb) %></td>
          <td>Ruby heap, malloc and unexplained: the memory a forked worker copies as it writes</td></tr>
          </tbody>
          </table>
          <%- end -%>
        ERB

        private

        def rows
          [["RSS after the boot", @sentences.total], ["Repeats", repeats], ["Where it came from", @sentences.growth],
           ["Objects allocated during the boot", count(@total.objects)], ["Alive after the boot", @sentences.retained],
           ["ObjectSpace.memsize_of_all after the boot", mib(@total.memsize_kb)]]
        end

        def repeats
          values = Array(@total.values).map { |kb| mebi(kb) }
          values.empty? ? @summary.repeats.to_s : "#{@summary.repeats}: #{values.join(', ')} MiB"
        end

        def part(member)
          @parts[member].nil? ? "not read" : mebi(@parts[member])
        end

        # malloc not read says why (the allocator gives no count, or reading it was too slow).
        def about(member, what)
          return what unless member == :malloc_kb && @parts.malloc_kb.nil?

          @sentences.malloc_not_read
        end
      end
    end
  end
end

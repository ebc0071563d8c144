# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # What ran and where, from meta.json: enough to reproduce the run or to doubt it.
      class MetadataView < View
        SHELL_SAFE = %r{\A[\w@%+=:,./-]+\z}

        # @param meta [Run::Meta] empty when the run has no meta.json
        def initialize(meta)
          super()
          @meta = meta || Run::Meta.new
          @options = @meta.options || {}
        end

        template <<~'ERB'
          <section id="metadata">
          <h2>Run metadata</h2>
          <%- if @meta.to_h.values.all?(&:nil?) -%>
          <p class="note">No meta.json in this run directory.</p>
          <%- end -%>
          <%= Figures.new(rows) %>
          </section>
        ERB

        private

        def rows
          [["Command", command], ["mallard", @meta.mallard_version], ["Ruby", @meta.ruby],
           ["Kernel", @meta.kernel], ["CPUs", cpus], ["Started", @meta.phases&.started_at],
           ["Target URL", @meta.target&.url], ["Subject PID", @meta.subject_pid],
           ["Request paths", listed(@options["paths"])],
           ["Duration", @options["duration"] && "#{@options['duration']} s"],
           ["Concurrency", @options["concurrency"]],
           ["Sampling interval", @options["interval"] && "#{@options['interval']} s"],
           ["Configurations", listed(@meta.configs)], ["Repeats", @meta.repeat]]
        end

        # The layout's own line where the run recorded one (what the subject had, not only how many there were).
        def cpus
          @meta.cpu_layout&.description || @meta.cpus
        end

        def listed(items)
          text = Array(items).join(", ")
          text unless text.empty?
        end

        # As it could be typed again: arguments with spaces or shell characters in single quotes.
        def command
          argv = @meta.argv
          return unless argv

          (["mallard"] + argv).map { |arg| arg.match?(SHELL_SAFE) ? arg : "'#{arg.gsub("'") { "'\\''" }}'" }.join(" ")
        end
      end
    end
  end
end

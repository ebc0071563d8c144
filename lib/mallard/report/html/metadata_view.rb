# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # What ran and where, from meta.json: enough to reproduce the run or to doubt it.
      class MetadataView < View
        SHELL_SAFE = %r{\A[\w@%+=:,./-]+\z}

        def initialize(meta)
          super()
          @meta = meta || {}
          @options = @meta["options"] || {}
        end

        template <<~'ERB'
          <section id="metadata">
          <h2>Run metadata</h2>
          <%- if @meta.empty? -%>
          <p class="note">No meta.json in this run directory.</p>
          <%- end -%>
          <%= Figures.new(rows) %>
          </section>
        ERB

        private

        def rows
          [["Command", command], ["mallard", @meta["mallard_version"]], ["Ruby", @meta["ruby"]],
           ["Kernel", @meta["kernel"]], ["CPUs", @meta["cpus"]], ["Started", @meta.dig("phases", "started_at")],
           ["Target URL", @meta.dig("target", "url")], ["Subject PID", @meta["subject_pid"]],
           ["Request paths", Array(@options["paths"]).join(", ").then { |paths| paths.empty? ? nil : paths }],
           ["Duration", @options["duration"] && "#{@options['duration']} s"],
           ["Concurrency", @options["concurrency"]],
           ["Sampling interval", @options["interval"] && "#{@options['interval']} s"],
           ["Configurations", Array(@meta.dig("phases", "configs")).join(", ").then { |c| c.empty? ? nil : c }],
           ["Repeats", @meta.dig("phases", "repeat")]]
        end

        # As it could be typed again: arguments with spaces or shell characters in single quotes.
        def command
          argv = @meta["argv"]
          return unless argv

          (["mallard"] + argv).map { |arg| arg.match?(SHELL_SAFE) ? arg : "'#{arg.gsub("'") { "'\\''" }}'" }.join(" ")
        end
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  class CLI
    # `--html FILE` for every command that leaves a run directory (soak, compare, report).
    module HtmlOutput
      module_function

      # Adds --html FILE to a command's parser; the file lands in settings[:html].
      def define(opts, settings)
        opts.on("--html FILE", "also write a self-contained HTML report to FILE") { |file| settings[:html] = file }
      end

      # Checked before measuring, so a typo in the path does not cost a whole run.
      def check!(file)
        return unless file

        directory = File.dirname(File.expand_path(file))
        raise UsageError, "--html: no directory #{directory}" unless File.directory?(directory)
        raise UsageError, "--html: may not write to #{directory}" unless File.writable?(directory)
      end

      # Writes the HTML report of a summary to file (nothing when file is nil) and says where.
      # @param soaks [Hash{String=>Array<Summary::Soak>}] a comparison's soak summaries per configuration
      def write(file, err, summary:, meta:, soaks: {})
        return unless file

        Report::Html.write(file, summary, meta: meta, soaks: soaks)
        err.puts "mallard: HTML report written to #{file}"
      end
    end
  end
end

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

      # Checked before measuring, so a typo in the path does not cost a whole run. Tried for real —
      # the file opened for writing, or created and removed again — because as root File.writable?
      # says yes to /proc and to read-only file systems alike.
      def check!(file)
        return unless file

        path = File.expand_path(file)
        directory = File.dirname(path)
        raise UsageError, "--html #{file} is a directory; name the file to write" if File.directory?(path)
        raise UsageError, "--html: no directory #{directory} (create it first)" unless File.directory?(directory)

        try_writing(path)
      rescue SystemCallError => e
        raise UsageError, "--html: cannot write #{file}: #{e.message.sub(/ @ .*| - .*/, '')}"
      end

      # An existing file is opened without truncating it; a new one is created and removed.
      def try_writing(path)
        return File.open(path, File::WRONLY | File::APPEND, &:close) if File.exist?(path)

        File.open(path, File::WRONLY | File::CREAT | File::EXCL, 0o644, &:close)
        File.unlink(path)
      end

      # Writes the HTML report of a summary to file (nothing when file is nil) and says where.
      # @param soaks [Hash{String=>Array<Summary::Soak>}] a comparison's soak summaries per configuration
      def write(file, err, summary:, meta:, soaks: {})
        return unless file

        Report::Html.write(file, summary, meta: meta, soaks: soaks)
        err.puts "mallard: HTML report written to #{file}"
      end

      # The HTML report of a run just made, with what its page needs besides the summary (meta.json, a comparison's
      # soaks) read back from its directory by its kind of run, as `mallard report` reads them.
      # @param directory [Run::Directory]
      def write_run(file, err, summary:, directory:)
        return unless file

        kind = RunKind.named(summary.kind)
        run = kind.read(directory)
        write(file, err, summary: summary, meta: run.meta, soaks: kind.html_soaks(run))
      end
    end
  end
end

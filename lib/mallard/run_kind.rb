# frozen_string_literal: true

module Mallard
  # A kind of run mallard writes (soak, gc, heap, compare, boot, fleet), whole: how its directory is read, how its
  # summary is had (the stored one, else computed again from the raw files — one rule per kind), written
  # (failure-safe), shown (terminal, HTML) and diffed. The commands that take a run directory (report, diff) and
  # the views that take any summary (HTML) dispatch here, on the name the run gives, and nowhere else: a new kind
  # of run is one file under run_kinds/ that subclasses this and registers itself.
  class RunKind
    # A run directory read by its kind's reader, and the summary its kind gives it (computed once).
    Opened = Struct.new(:kind, :run) do
      def summary = (@summary ||= kind.summary(run))
      def recomputed? = kind.recomputed?(run)
    end

    @kinds = {}

    class << self
      # @param kind [RunKind]
      def register(kind)
        @kinds[kind.name] = kind
      end

      # Forgets a kind registered for a test.
      def unregister(name)
        @kinds.delete(name)
      end

      # @raise [UsageError] when no kind has the name
      def named(name)
        @kinds.fetch(name) { raise UsageError, "no kind of run is called #{name.inspect}" }
      end

      # Any run directory mallard wrote, live or stored, finished or not.
      # @return [Opened]
      # @raise [NotFound] when path is not a run directory mallard can read (Run::Reader::NewerSchema: a newer one)
      def open(path)
        directory, name = Run::Reader.identify(path)
        kind = @kinds.fetch(name) do
          raise NotFound, "#{path} is not a mallard run directory (no meta.json or summary.json naming one of " \
                          "#{@kinds.keys.join(', ')})"
        end
        Opened.new(kind, kind.read(directory))
      end
    end

    # The name meta.json's command and summary.json's kind give this kind of run.
    def name = raise(NotImplementedError)

    # @param directory [Run::Directory]
    # @return the run's value (Run::SoakRun, Run::CompareRun…), whatever the directory holds so far
    def read(directory) = reader.read(directory)

    # The summary to show: the one the run stored, else computed again from its raw files (#summarise).
    def summary(run) = run.summary || summarise(run)

    # Whether #summary had to compute the summary: the run never stored one.
    def recomputed?(run) = run.summary.nil?

    # Lines of the run's records that were damaged and skipped.
    def skipped_lines(_run, summary) = summary.respond_to?(:skipped_lines) ? summary.skipped_lines.to_i : 0

    # Writes summary.json; a directory that cannot take it costs the file, never the summary in hand.
    # @return [String, nil] why it was not saved
    def write_summary(directory, summary, file: "summary.json")
      directory.write_json(file, summary)
      nil
    rescue WriteFailed => e
      e.message
    end

    # @return [#render] the terminal view of one of this kind's summaries
    def terminal(summary, color:) = terminal_view.new(summary, color: color)

    # @return [#all] the one presenter of the sentences this kind's views share: each view places and styles
    #   them, none rewords them
    def sentences(summary) = raise(NotImplementedError)

    # Whether the kind has an HTML report.
    def html? = true

    # @param soaks [Hash] a comparison's soak summaries per configuration (the views of other kinds ignore it)
    # @return [#title, #sections] the HTML page of one of this kind's summaries
    def html_page(summary, meta:, soaks: {}) = raise(NotImplementedError)

    # What the HTML page of a run needs besides its summary: a comparison's soak summaries.
    def html_soaks(_run) = {}

    # The figures `mallard diff` can compare between two runs of this kind: metric name => +1 when a rise is
    # worse, -1 when a fall is. The first is the default; a kind without any cannot be diffed.
    def diff_metrics = {}

    # @param before [Opened] run A
    # @param after [Opened] run B
    def default_diff_metric(_before, _after) = diff_metrics.keys.first

    # Kinds whose runs diff against each other share a family (a gc run is a soak shown GC first).
    def diff_family = name

    # @param before [Opened] run A
    # @param after [Opened] run B
    # @return [Hash] what Summary::Diff holds, but for the sides and the gate
    def diff(before, after, metric:)
      Analysis::RunDiff.figures(diff_figures(before.summary), diff_figures(after.summary), kind: name, metric: metric,
                                                                                           directions: diff_metrics)
    end

    # A summary's figures by metric name (one per run, no interval), for the default #diff.
    def diff_figures(_summary) = {}
  end
end

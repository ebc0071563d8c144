# frozen_string_literal: true

module Mallard
  # A kind of run mallard writes (soak, gc, heap, compare, boot, fleet), whole: how its directory is read, how its
  # summary is had (the stored one, else computed again from the raw files — one rule per kind), shown (terminal,
  # HTML) and diffed, and what else differs between kinds (where a heap run keeps its soak's summary, that a gc run
  # is shown GC first). Every command that shows a run (the measuring ones, report, diff) and the views that take
  # any summary (HTML) dispatch here, on the name the run gives, and nowhere else: a new kind of run is one file
  # under run_kinds/ that subclasses this and registers itself.
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

      # The kind of run meta.json's command made; a soak when there is no command to go by (no meta.json).
      def for_command(command) = named(command || "soak")

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

    # @return [#render] the terminal view of one of this kind's summaries
    def terminal(summary, color:) = terminal_view.new(summary, color: color)

    # The kind the soak a run of this kind took is summarised and reported as: a soak's (a heap run's soak is a run
    # of its own, `mallard report --soak`), unless the kind is a soak itself.
    def soak_kind = RunKind.named("soak")

    # Where the soak a run of this kind took keeps its summary in the run directory.
    def soak_summary_file = "summary.json"

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

    # What each row of a diff of two of this kind's runs is, the heading of the diff table's first column.
    def diff_row = "metric"

    # The rows of such a diff that --fail-over gates on.
    # @param rows [Array<Hash>] #diff's
    def gated_rows(rows) = rows

    # Whether the reason a --fail-over failed names the row that failed (needed when several rows can).
    def fail_over_names_row? = false

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

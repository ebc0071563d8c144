# frozen_string_literal: true

require_relative "../version"
require_relative "units"
require_relative "compare_terminal"
require_relative "../run/directory"
require_relative "../errors"
require_relative "html/view"
require_relative "html/nice_scale"
require_relative "html/svg_tag"
require_relative "html/series_style"
require_relative "svg_chart"
require_relative "html/chart_table"
require_relative "html/chart_view"
require_relative "html/timeline"
require_relative "html/soak_run"
require_relative "html/soak_charts"
require_relative "html/compare_runs"
require_relative "html/compare_charts"
require_relative "html/style"
require_relative "html/layout"
require_relative "html/section"
require_relative "html/figures"
require_relative "html/header_view"
require_relative "html/metadata_view"
require_relative "html/process_table"
require_relative "html/soak_verdict_view"
require_relative "html/load_view"
require_relative "html/gc_view"
require_relative "html/compare_table_view"
require_relative "html/compare_latency_view"
require_relative "html/recommendation_view"
require_relative "html/soak_page"
require_relative "html/compare_page"

module Mallard
  module Report
    # A run directory (a soak or a comparison) as one self-contained HTML file: inline CSS and SVG,
    # no scripts, nothing fetched, so it can be mailed, archived or opened offline.
    class Html
      def self.write(run_dir_path, file)
        File.open(file, "w") { |io| new(run_dir_path).render(io) }
        file
      end

      def initialize(run_dir_path)
        @directory = Run::Directory.new(run_dir_path)
        @meta = @directory.read_json("meta.json")
        @summary = @directory.read_json("summary.json")
        return if @meta || @summary

        raise NotFound, "#{@directory.path} is not a mallard run directory (no meta.json or summary.json)"
      end

      # soak or compare: summary.json says; without one, the command that started the run.
      def kind
        (@summary && @summary["kind"]) || @meta["command"]
      end

      def render(io)
        io.write(Layout.new(title: page.title, sections: page.sections).to_s)
        io
      end

      private

      def page
        @page ||= if kind == "compare"
                    ComparePage.new(@directory, meta: @meta, summary: @summary)
                  else
                    SoakPage.new(SoakRun.new(@directory))
                  end
      end
    end
  end
end

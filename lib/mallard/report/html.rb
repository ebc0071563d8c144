# frozen_string_literal: true

require_relative "../version"
require_relative "../text"
require_relative "../run/meta"
require_relative "../summary/soak_series"
require_relative "formatting"
require_relative "deploy_snippets"
require_relative "html/view"
require_relative "html/nice_scale"
require_relative "html/svg_tag"
require_relative "html/series_style"
require_relative "html/svg_chart"
require_relative "html/chart_table"
require_relative "html/chart_view"
require_relative "html/soak_charts"
require_relative "html/sharing_chart"
require_relative "html/role_chart"
require_relative "html/role_table"
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
require_relative "html/jobs_view"
require_relative "html/job_class_table"
require_relative "html/gc_view"
require_relative "html/compare_table_view"
require_relative "html/compare_latency_view"
require_relative "html/compare_yjit_view"
require_relative "html/recommendation_view"
require_relative "html/soak_page"
require_relative "html/compare_page"
require_relative "html/gem_colors"
require_relative "html/icicle_layout"
require_relative "html/icicle_chart"
require_relative "html/parts_bar"
require_relative "html/ledger_chart"
require_relative "html/boot_cells"
require_relative "html/boot_total_view"
require_relative "html/boot_tree_table"
require_relative "html/boot_gems_table"
require_relative "html/boot_fork_view"
require_relative "html/boot_method_view"
require_relative "html/boot_page"
require_relative "html/heap_cells"
require_relative "html/heap_retained_view"
require_relative "html/heap_sites_chart"
require_relative "html/heap_sites_table"
require_relative "html/heap_groups_table"
require_relative "html/heap_generations_table"
require_relative "html/heap_generations_chart"
require_relative "html/heap_dumps_view"
require_relative "html/heap_soak_view"
require_relative "html/heap_method_view"
require_relative "html/heap_page"
require_relative "html/plan_table"
require_relative "html/plan_page"

module Mallard
  module Report
    # A soak, a comparison, a boot or a heap run as one self-contained HTML file: inline CSS and SVG, no scripts,
    # nothing fetched, so it can be mailed, archived or opened offline. It formats the summary it is given, the
    # same one the terminal and JSON views print, and draws its series; it reads no run directory.
    class Html
      # @return [String] file
      def self.write(file, summary, meta:, soaks: {})
        File.open(file, "w") { |io| new(summary, meta: meta, soaks: soaks).render(io) }
        file
      end

      # @param summary [Summary::Soak, Summary::Compare, Summary::Boot, Summary::Heap]
      # @param meta [Run::Meta] the run's meta.json (an empty Run::Meta when there is none)
      # @param soaks [Hash{String=>Array<Summary::Soak>}] a comparison's soak summaries per configuration
      def initialize(summary, meta:, soaks: {})
        @page = RunKind.named(summary.kind).html_page(summary, meta: meta || Run::Meta.new, soaks: soaks || {})
      end

      def render(io)
        io.write(Layout.new(title: @page.title, sections: @page.sections).to_s)
        io
      end
    end
  end
end

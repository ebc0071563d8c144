# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The report's only stylesheet, inlined. System fonts only: nothing is fetched.
      module Style
        CSS = Safe.new(<<~CSS).freeze
          :root { color-scheme: light; --ink: #1d1d1f; --muted: #5f6368; --rule: #d9d9de; --warn: #8a4b00; }
          body { margin: 0; background: #fafafa; color: var(--ink);
                 font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
          main { max-width: 1320px; margin: 0 auto; padding: 24px; }
          main p, main ul, main ol, main pre, figure.chart { max-width: 980px; }
          header.run-header { border-bottom: 2px solid var(--ink); margin-bottom: 8px; }
          h1 { font-size: 1.5rem; margin: 0 0 8px; overflow-wrap: anywhere; }
          h2 { font-size: 1.2rem; border-bottom: 1px solid var(--rule); padding-bottom: 4px; margin-top: 32px; }
          h3 { font-size: 1rem; margin: 20px 0 6px; }
          section { margin-bottom: 16px; }
          code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.9em; }
          pre { background: #f0f0f3; border: 1px solid var(--rule); padding: 10px 12px; overflow-x: auto;
                white-space: pre-wrap; overflow-wrap: anywhere; }
          table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
          th, td { border-bottom: 1px solid var(--rule); padding: 4px 12px 4px 0; text-align: left; vertical-align: top; }
          thead th { border-bottom: 2px solid var(--ink); }
          table.figures th { font-weight: 600; white-space: nowrap; }
          td { overflow-wrap: break-word; }
          .status-interrupted, .status-failed, .status-running { color: var(--warn); }
          .status-interrupted strong, .status-failed strong, .status-running strong { text-transform: uppercase; }
          .verdict { font-size: 1.1rem; }
          .note { color: var(--muted); }
          .warning { color: var(--warn); }
          ul.flags li { color: var(--warn); }
          figure.chart { margin: 20px 0; background: #fff; border: 1px solid var(--rule); padding: 12px; }
          figure.chart figcaption { font-weight: 600; margin-bottom: 6px; }
          figure.chart svg { display: block; width: 100%; height: auto; }
          .wide { overflow-x: auto; }
          table.boot-tree, table.boot-gems { font-size: 0.85rem; }
          table.boot-tree :is(th, td), table.boot-gems :is(th, td) { overflow-wrap: normal; padding-right: 6px; }
          table.boot-tree td.also { min-width: 12em; font-size: 0.9em; }
          table.boot-gems tbody th { white-space: nowrap; }
          table.boot-tree tbody th { min-width: 12em; }
          td.num { text-align: right; white-space: nowrap; }
          table.heap-sites, table.heap-groups, table.heap-dumps { font-size: 0.85rem; }
          table.roles { font-size: 0.85rem; }
          table.heap-sites tr.significant td { font-weight: 600; }
          details.table-view summary { cursor: pointer; color: var(--muted); }
          details.table-view table { font-size: 0.85rem; }
          footer { max-width: 1320px; margin: 0 auto; padding: 0 24px 24px; color: var(--muted); font-size: 0.85rem; }
          @media print { body { background: #fff; } figure.chart { break-inside: avoid; } }
        CSS
      end
    end
  end
end

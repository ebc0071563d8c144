# frozen_string_literal: true

require "test_helper"
require "mallard/report/html"
require "cgi"
require_relative "stored_summaries"

# The HTML report of a boot, rendered from the stored boot run's summary (test/fixtures/runs/boot) and from
# copies of it changed to the case at hand: the icicle's boxes against the figures they draw, the tables, a
# malloc that was not read, a boot that failed, and text from outside.
class HtmlBootTest < Minitest::Test
  include StoredSummaries

  ATTACK = "<script>alert(1)</script>"
  ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
  CHART = Mallard::Report::Html::IcicleChart
  PX_PER_KB = CHART::WIDTH / 34_572.0 # the fixture's total RSS spans the chart

  # Each box of the icicle: its kind, x, y, width and tooltip.
  BOX = %r{<rect class="icicle-(\w+)" x="([\d.]+)" y="(\d+)" width="([\d.]+)"[^>]*><title>([^<]*)</title>}

  def test_the_icicle_draws_every_require_as_wide_as_its_rss_beneath_its_parent
    html = render
    nodes = boxes(html, "node")
    shown = walk(boot_hash["tree"])

    assert_equal shown.map { |node, _| node["name"] }, nodes.map(&:first)
    shown.zip(nodes).each do |(node, depth), (name, _x, y, width)|
      assert_in_delta node["rss_kb"] * PX_PER_KB, width, 1, name
      assert_equal depth * CHART::ROW, y, name
    end
    total = boxes(html, "total").first
    assert_equal [0.0, 0, 760.0], total[1, 3]
    assert_includes total.last, "Total after the boot: 33.8 MiB (95% interval 33.7 … 33.8 MiB)"
  end

  def test_children_start_at_their_parent_and_its_hidden_requires_follow_them_in_grey
    html = render
    ballast, words = boxes(html, "node").first(2)
    hidden = boxes(html, "hidden")

    assert_equal ballast[1], words[1], "ballast/words starts where ballast does"
    assert_equal 3, hidden.size, "ballast's 2 hidden, bundler's 6, bundler/setup's 24"
    assert_in_delta words[1] + words[3], hidden.first[1], 0.11
    assert_in_delta 1080 * PX_PER_KB, hidden.first[3], 1
    assert_equal "2 requires under the cutoff: 1.1 MiB", hidden.first.last
    assert_includes html, 'fill="#ededed"'
  end

  def test_a_box_tells_its_figures_and_is_labelled_where_the_label_fits
    html = render
    words = boxes(html, "node").find { |name, *| name == "ballast/words" }

    assert_includes words.last, "ballast/words: 5.1 MiB (95% interval 5.0 … 5.6 MiB)\nself 5.1 MiB · gem ballast"
    assert_includes words.last, "also required by: ballast/table"
    assert_includes html, '<text x="4.0" y="37" pointer-events="none">ballast 15.8 MiB</text>'
    assert_includes html, ">(ruby before the first require) 13.4 MiB</text>"
    refute_match(/>bundler [\d.]+ MiB</, html, "bundler's box (27 px) is too narrow for a label")
  end

  def test_boxes_are_coloured_by_gem_with_a_legend
    html = render
    fills = html.scan(/<rect class="icicle-node" [^>]*fill="([^"]+)"/).flatten

    assert_equal 3, fills.uniq.size, "ballast, Ruby itself, bundler"
    assert_equal fills[0], fills[1], "ballast and ballast/words"
    legend = html.scan(%r{<g class="legend-entry">.*?<text [^>]*>([^<]*)</text></g>}).flatten
    assert_equal ["ballast", "Ruby itself", "bundler", "under the cutoff"], legend
  end

  def test_deep_narrow_and_oversized_children_are_drawn_within_bounds
    chain = (1..15).reverse_each.inject([]) { |children, i| [node("level#{i}", 20_000, children)] }
    tiny = node("tiny", 10)
    crowded = node("crowded", 4000, [node("a", 3000), node("b", 3000)])
    html = render(boot_hash.merge("tree" => chain + [tiny, crowded]))
    drawn = boxes(html, "node")

    assert_equal((1..CHART::MAX_DEPTH).map { |i| "level#{i}" }, drawn.map(&:first).grep(/level/))
    refute_includes drawn.map(&:first), "tiny", "under a pixel"
    parent, *children = drawn.last(3)
    assert_in_delta parent[3], children.sum { |child| child[3] }, 0.2, "narrowed to their parent's width"
    assert_includes html, "they are drawn narrowed to fit beneath it"
  end

  def test_the_total_its_parts_and_the_tables_hold_every_figure
    html = render

    assert_includes html, "<td>33.8 MiB (95% interval 33.7 … 33.8 MiB, ±0.1%)</td>"
    assert_includes html, "<td>107,838 objects alive after the boot, 14.2 MiB</td>"
    assert_equal 4, html.scan(/<rect x="[\d.]+" y="0" width="[\d.]+" height="32"/).size, "four parts in the bar"
    boot_hash["gems"].each { |gem| assert_includes table(html, "boot-gems"), "<th scope=\"row\">#{gem['name']}</th>" }
    tree = table(html, "boot-tree")
    walk(boot_hash["tree"], limit: 99).each do |node, depth|
      # indented by depth; a long path may break after each "/"
      name = node["name"].gsub("/", "/<wbr>")
      assert_includes tree, "<th scope=\"row\" style=\"padding-left: #{(depth - 1) * 0.75}em\">#{name}</th>"
    end
    assert_includes tree, "24 more requires\nunder the cutoff"
    assert_includes table(html, "boot-gems"), '<td class="num">0.00 ?</td>', "patcher's interval includes zero"
  end

  def test_malloc_not_read_says_why_and_is_not_drawn
    hash = boot_hash
    hash["total"]["parts"]["malloc_kb"] = nil
    hash["malloc_note"] = "jemalloc's count was not read"
    html = render(hash)
    row = html[%r{<tr><th scope="row">malloc</th>.*?</tr>}m]

    assert_includes row, "not read"
    assert_includes row, "not read: jemalloc&#39;s count was not read; it is in unexplained"
    refute_includes html, "<title>malloc:", "no malloc segment in the bar"
  end

  def test_workers_after_fork_are_shown_only_when_measured
    assert_includes render, "<td>39.3 MiB PSS; RSS would count 96.0 MiB</td>"
    refute_includes render(boot_hash.merge("fork" => nil)), 'id="fork"'
  end

  def test_a_failed_boot_says_why_and_shows_no_figures
    failure = { "repeat" => 1, "reason" => "LoadError: cannot load such file -- nope", "where" => "config.ru:3" }
    html = render(boot_hash.merge("status" => "failed", "reason" => "the app did not boot (repeat 1)", "total" => nil,
                                  "tree" => [], "gems" => [], "fork" => nil, "failures" => [failure]))

    assert_includes html, "Status: <strong>failed</strong>: the app did not boot (repeat 1)"
    assert_includes html, "Repeat 1 failed: LoadError: cannot load such file -- nope (config.ru:3)"
    refute_includes html, "<svg"
    assert_includes html, '<section id="method">'
    refute_includes html, "Run directory:"
  end

  def test_everything_from_the_run_is_escaped
    hash = hostile(boot_hash)
    meta = stored("boot/meta.json")
    meta["argv"] << ATTACK
    html = render(hash, meta: Mallard::Run::Meta.from_h(meta))
    tags = html.scan(/<[^>]*>/)

    refute_match(/<script/i, html)
    assert_operator html.scan(ESCAPED).size, :>=, 20
    assert tags.grep(%r{https?://|src=|href=}i).empty?, tags.grep(%r{https?://|src=|href=}i).first
  end

  def test_gem_colours_are_kept_from_one_report_to_the_next_and_stay_apart
    palette = Mallard::Report::Html::GemColors::PALETTE
    names = (1..palette.size).map { |i| "gem#{i}" }
    colors = Mallard::Report::Html::GemColors.new(names)

    assert_equal palette.size, names.map { |name| colors[name] }.uniq.size
    assert_equal colors["gem1"], Mallard::Report::Html::GemColors.new(["gem1"])["gem1"]
    assert_equal colors[nil], colors["ruby"]
  end

  private

  def boot_hash = stored("boot/summary.json")

  def render(hash = boot_hash, meta: stored_meta("boot"))
    summary = Mallard::Summary::Boot.from_h(hash)
    StringIO.new.tap { |io| Mallard::Report::Html.new(summary, meta: meta).render(io) }.string
  end

  # [name, x, y, width, tooltip] of each box of a kind, in the order drawn.
  def boxes(html, kind)
    html.scan(BOX).select { |found, *| found == kind }.map do |_, x, y, width, title|
      [CGI.unescapeHTML(title)[/\A[^:\n]+/], x.to_f, y.to_i, width.to_f, CGI.unescapeHTML(title)]
    end
  end

  # [node hash, depth] of every require the icicle draws: depth 1 for the tree's roots.
  def walk(nodes, depth = 1, limit: CHART::MAX_DEPTH)
    return [] if depth > limit

    nodes.flat_map { |node| [[node, depth], *walk(node["children"], depth + 1, limit: limit)] }
  end

  def table(html, name) = html[%r{<table class="#{name}">.*?</table>}m]

  def node(name, kb, children = [])
    { "name" => name, "gem" => "ballast", "rss_kb" => kb, "ci" => [kb - 1, kb + 1], "self_kb" => kb,
      "parts" => { "file_kb" => 0, "anon_kb" => kb, "heap_kb" => 0, "malloc_kb" => 0, "unexplained_kb" => kb },
      "also_required_by" => [], "children" => children }
  end

  # Every name, path and reason in the summary replaced by markup.
  def hostile(hash)
    hash.merge!("app" => ATTACK, "reason" => ATTACK, "malloc_note" => ATTACK, "ruby" => ATTACK, "methodology" => ATTACK,
                "failures" => [{ "repeat" => 2, "reason" => ATTACK, "where" => ATTACK }])
    hash["target"]["description"] = ATTACK
    walk(hash["tree"], limit: 99).each do |node, _|
      node.merge!("name" => "#{node['name']}#{ATTACK}", "gem" => ATTACK, "file" => ATTACK,
                  "also_required_by" => [ATTACK])
    end
    hash["gems"].each { |gem| gem.merge!("name" => ATTACK, "version" => ATTACK) }
    hash
  end
end

# frozen_string_literal: true

require "test_helper"

# One repeat's tree from records written the way the probe writes them.
class BootTreeTest < Minitest::Test
  MIB = 1024 * 1024
  GEMS = [["alpha", "1.0", ["/gems/alpha/lib"]], ["beta", "2.0", ["/gems/beta/lib"]]].freeze

  def reading(objects, rss_mib, file_mib: 1, heap_mib: 0.5, malloc_mib: 1)
    Mallard::Run::BootReading.new(objects: objects, rss: rss_mib * MIB, file: file_mib * MIB, heap: heap_mib * MIB,
                                  malloc: malloc_mib && (malloc_mib * MIB), live: objects / 2)
  end

  def record(id, parent, name, start, finish, file: nil, hook: 2)
    Mallard::Run::RequireRecord.new(id: id, parent: parent, name: name, file: file, loaded: true, hook_objects: hook,
                                    start: start, finish: finish)
  end

  # alpha (5 MiB, 1,000 objects) requires beta (2 MiB, 402); beta is asked for again from the top.
  def repeat
    requires = [
      record(2, 1, "beta", reading(1_100, 11), reading(1_504, 13, malloc_mib: 2), file: "/gems/beta/lib/beta.rb"),
      record(1, 0, "alpha", reading(1_000, 10), reading(2_010, 15, malloc_mib: 3), file: "/gems/alpha/lib/alpha.rb",
                                                                                   hook: 10),
      Mallard::Run::RequireRecord.new(id: 3, parent: 0, name: "beta", loaded: false)
    ]
    Mallard::Run::BootRepeat.new(repeat: 1, probe_bytes: MIB / 2, hook_objects: 12, gems: GEMS, ruby_dirs: [],
                                 app_dir: "/srv/app", start: reading(900, 9.5, malloc_mib: 0.5),
                                 finish: reading(2_100, 16.5, malloc_mib: 3), requires: requires)
  end

  def test_inclusive_figures_nest_and_the_probe_is_left_out
    root = Mallard::Analysis::BootTree.new(repeat).root
    baseline, alpha, outside = root.children

    assert_equal [Mallard::Analysis::BootTree::BASELINE, "alpha", Mallard::Analysis::BootTree::OUTSIDE],
                 root.children.map(&:name)
    assert_equal 16 * MIB, root.figures[:rss], "the probe's own half MiB is not the app's"
    assert_equal 9 * MIB, baseline.figures[:rss]
    assert_alpha alpha
    assert_equal 2 * MIB, outside.figures[:rss]
  end

  def assert_alpha(alpha)
    assert_equal 5 * MIB, alpha.figures[:rss]
    assert_equal 3 * MIB, alpha.self_figures[:rss]
    assert_equal 1_000, alpha.figures[:objects], "2,010 - 1,000 less the hook's 10"
    assert_equal 404 - 2, alpha.children.first.figures[:objects]
  end

  def test_self_figures_add_up_to_the_whole_boot
    tree = Mallard::Analysis::BootTree.new(repeat)
    nodes = []
    tree.each_node { |node| nodes << node }

    assert_equal(tree.root.figures[:rss], nodes.sum { |node| node.self_figures[:rss] })
    assert_equal(tree.root.figures[:objects], nodes.sum { |node| node.self_figures[:objects] })
  end

  def test_a_file_asked_for_again_names_who_asked_and_files_belong_to_their_gems
    alpha = Mallard::Analysis::BootTree.new(repeat).root.children[1]
    beta = alpha.children.first

    assert_equal ["(boot)"], beta.also_required_by
    assert_equal %w[alpha beta], [alpha.owner, beta.owner]
  end

  def test_no_malloc_reading_leaves_malloc_unknown_not_zero
    records = repeat.requires.map do |each|
      next each unless each.loaded

      each.dup.tap { |copy| copy.start = copy.start.dup.tap { |r| r.malloc = nil } }
    end
    alpha = Mallard::Analysis::BootTree.new(repeat.dup.tap { |r| r.requires = records }).root.children[1]

    assert_nil alpha.figures[:malloc]
    assert_equal 5 * MIB, alpha.figures[:rss]
  end
end

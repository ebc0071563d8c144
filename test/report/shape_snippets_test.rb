# frozen_string_literal: true

require "test_helper"

# compare --shape's variants as deploy snippets: fork_worker's line, the hook that warms up or compacts before fork,
# and Pitchfork's own config file in place of config/puma.rb.
class ShapeSnippetsTest < Minitest::Test
  ShapeSnippets = Mallard::Report::ShapeSnippets
  PUMA = "Puma shape (config/puma.rb)"
  ENVIRONMENT = "Or by environment (Rails' generated config/puma.rb reads these)"

  def test_refork_is_fork_worker_and_says_why_there_is_no_preload
    snippets = titled("2x5-refork=50")

    assert_match(/workers 1… forked from worker 0 and forked again after 50 requests/, snippets[PUMA])
    assert_match(/^threads 5, 5\nworkers 2\nfork_worker 50\n# no preload_app!: Puma 5 does not refork/, snippets[PUMA])
    assert_match(%r{^# fork_worker is no variable: fork_worker 50 in config/puma.rb\z}, snippets[ENVIRONMENT])
  end

  def test_warmup_and_compact_are_a_before_fork_hook_in_a_preloaded_master
    warmup = titled("2x5-warmup")[PUMA]
    compact = titled("3x2-compact")[PUMA]

    assert_match(/preloaded by the master, which runs Process.warmup before it forks/, warmup)
    assert_match(/^workers 2\npreload_app!\nbefore_fork do\n  Process.warmup\nend\z/, warmup)
    assert_match(/^before_fork do\n  GC.start\(full_mark: true, immediate_sweep: true\); GC.compact\nend\z/, compact)
    assert_match(/^# warmup before fork is no variable: preload_app! and before_fork \{ Process.warmup \}/,
                 titled("2x5-warmup")[ENVIRONMENT])
  end

  def test_pitchfork_is_its_own_config_file_and_no_puma_lines
    snippets = titled("4x1-pitchfork")

    assert_equal ["Pitchfork (config/pitchfork.rb; Gemfile: gem \"pitchfork\")"], snippets.keys
    assert_match(/^worker_processes 4\nlisten 3000 # the app's port\nrefork_after \[1000\]\z/, snippets.values.first)
    assert_includes snippets.values.first, "bundle exec pitchfork -c config/pitchfork.rb"
  end

  def test_the_plain_shapes_read_as_before
    assert_match(/^workers 2\npreload_app!\z/, titled("2x5")[PUMA])
    assert_match(%r{^# preloading is no variable: preload_app! in config/puma.rb\z}, titled("2x5")[ENVIRONMENT])
    assert_empty ShapeSnippets.titled(Mallard::Summary::Row.new(name: "glibc", allocator: "glibc"))
  end

  private

  def titled(shape)
    ShapeSnippets.titled(Mallard::Summary::Row.new(name: "glibc/#{shape}", allocator: "glibc", shape: shape))
  end
end

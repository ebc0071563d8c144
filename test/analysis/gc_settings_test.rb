# frozen_string_literal: true

require "test_helper"
require_relative "../support/gc_runs"

# The RUBY_GC_* settings a subject ran with, and those its Ruby does not read, with why in a word (the words are
# SoakSentences', GcSentencesTest).
class GcSettingsTest < Minitest::Test
  include GcRuns
  GcSettings = Mallard::Analysis::GcSettings

  def test_the_single_initial_size_is_ignored_from_ruby_three_three
    settings = GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: "3.3.6",
                                                            env: { "RUBY_GC_HEAP_INIT_SLOTS" => "600000",
                                                                   "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1" }))

    init = settings.find { |setting| setting.name == "RUBY_GC_HEAP_INIT_SLOTS" }
    assert_equal %w[per_pool 3.3.6], [init.unread, init.ruby_version]
    assert_nil init.ignored
    refute settings.find { |setting| setting.name == "RUBY_GC_HEAP_GROWTH_FACTOR" }.ignored?
  end

  def test_per_pool_sizes_are_ignored_before_ruby_3_3_and_read_after
    env = { "RUBY_GC_HEAP_0_INIT_SLOTS" => "10000", "RUBY_GC_HEAP_INIT_SLOTS" => "600000" }
    old = GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: "3.1.2", env: env)).to_h { |s| [s.name, s] }
    new = GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: "3.4.1", env: env)).to_h { |s| [s.name, s] }

    assert_equal "not_read", old["RUBY_GC_HEAP_0_INIT_SLOTS"].unread
    assert_nil old["RUBY_GC_HEAP_INIT_SLOTS"].unread
    assert_nil new["RUBY_GC_HEAP_0_INIT_SLOTS"].unread
    assert_equal "per_pool", new["RUBY_GC_HEAP_INIT_SLOTS"].unread
  end

  # Five pools in 3.3 (SIZE_POOL_COUNT) and 3.4 (HEAP_COUNT): a sixth is read by neither.
  def test_only_the_five_pools_a_ruby_has_are_read
    env = { "RUBY_GC_HEAP_4_INIT_SLOTS" => "1000", "RUBY_GC_HEAP_5_INIT_SLOTS" => "1000" }
    settings = GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: "3.4.5", env: env)).to_h { |s| [s.name, s] }

    assert_nil settings["RUBY_GC_HEAP_4_INIT_SLOTS"].unread
    assert_equal "not_read", settings["RUBY_GC_HEAP_5_INIT_SLOTS"].unread
  end

  def test_the_remembered_ratio_is_read_from_three_three_and_the_gc_library_only_by_a_modular_build
    env = { "RUBY_GC_HEAP_REMEMBERED_WB_UNPROTECTED_OBJECTS_LIMIT_RATIO" => "0.02", "RUBY_GC_LIBRARY" => "mmtk" }
    unread = %w[3.2.2 3.3.0 3.4.1].to_h do |version|
      [version, GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: version, env: env)).map(&:unread)]
    end

    assert_equal({ "3.2.2" => %w[not_read not_read], "3.3.0" => [nil, "not_read"],
                   "3.4.1" => [nil, "modular_gc_only"] }, unread)
  end

  def test_a_misspelt_variable_is_flagged_and_an_unknown_ruby_judges_nothing
    env = { "RUBY_GC_HEAP_GROWTH_FACTORR" => "1.1" }

    assert_equal "not_read", GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: "3.2.0", env: env)).first.unread
    assert_nil GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: nil, env: env)).first.unread
  end

  def test_the_settings_reach_the_summary
    settings = Mallard::Run::GcSettings.new(ruby_version: "3.3.0", env: { "RUBY_GC_HEAP_INIT_SLOTS" => "1" })
    run = gc_run(agent: agent_records(61, old: ->(_i) { 1 }), gc_settings: settings)

    assert_equal ["RUBY_GC_HEAP_INIT_SLOTS"], Mallard::Analysis::SoakSummary.call(run).gc.settings.map(&:name)
    assert_empty GcSettings.call(nil)
  end
end

# frozen_string_literal: true

require "test_helper"
require_relative "../support/gc_runs"

# The RUBY_GC_* settings a subject ran with, and those its Ruby does not read.
class GcSettingsTest < Minitest::Test
  include GcRuns
  GcSettings = Mallard::Analysis::GcSettings

  def test_the_single_initial_size_is_ignored_from_ruby_three_three
    settings = GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: "3.3.6",
                                                            env: { "RUBY_GC_HEAP_INIT_SLOTS" => "600000",
                                                                   "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1" }))

    init = settings.find { |setting| setting.name == "RUBY_GC_HEAP_INIT_SLOTS" }
    assert_match(/RUBY_GC_HEAP_0_INIT_SLOTS/, init.ignored)
    assert_nil settings.find { |setting| setting.name == "RUBY_GC_HEAP_GROWTH_FACTOR" }.ignored
  end

  def test_per_pool_sizes_are_ignored_before_ruby_3_3_and_read_after
    env = { "RUBY_GC_HEAP_0_INIT_SLOTS" => "10000", "RUBY_GC_HEAP_INIT_SLOTS" => "600000" }
    old = GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: "3.1.2", env: env)).to_h { |s| [s.name, s] }
    new = GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: "3.4.1", env: env)).to_h { |s| [s.name, s] }

    assert_match(/does not read/, old["RUBY_GC_HEAP_0_INIT_SLOTS"].ignored)
    assert_nil old["RUBY_GC_HEAP_INIT_SLOTS"].ignored
    assert_nil new["RUBY_GC_HEAP_0_INIT_SLOTS"].ignored
    refute_nil new["RUBY_GC_HEAP_INIT_SLOTS"].ignored
  end

  def test_a_misspelt_variable_is_flagged_and_an_unknown_ruby_judges_nothing
    env = { "RUBY_GC_HEAP_GROWTH_FACTORR" => "1.1" }

    refute_nil GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: "3.2.0", env: env)).first.ignored
    assert_nil GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: nil, env: env)).first.ignored
  end

  def test_the_settings_reach_the_summary
    settings = Mallard::Run::GcSettings.new(ruby_version: "3.3.0", env: { "RUBY_GC_HEAP_INIT_SLOTS" => "1" })
    run = gc_run(agent: agent_records(61, old: ->(_i) { 1 }), gc_settings: settings)

    assert_equal ["RUBY_GC_HEAP_INIT_SLOTS"], Mallard::Analysis::SoakSummary.call(run).gc.settings.map(&:name)
    assert_empty GcSettings.call(nil)
  end
end

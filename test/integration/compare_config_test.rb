# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/rubies"

# compare --config: a configuration of any environment, its settings checked in the app's own Ruby before any row
# runs, and the check kept in the summary's rows.
class CompareConfigIntegrationTest < Minitest::Test
  include Processes

  STABLE = File.expand_path("../fixtures/apps/stable", __dir__)

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-config-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  # Ruby 3.3 reads the per-pool RUBY_GC_HEAP_%d_INIT_SLOTS only; MALLOC_CONF is jemalloc's.
  def test_settings_a_row_would_not_take_are_refused_before_any_row_runs
    out_dir = File.join(@tmp, "refused")
    _, err, status = mallard("compare", STABLE, "--ruby", Rubies.path(Rubies::STOCK), "--out", out_dir,
                             "--config", "old=RUBY_GC_HEAP_INIT_SLOTS=2000000",
                             "--config", "conf=glibc,MALLOC_CONF=narenas:2", "--duration", "3", "--repeat", "1")

    assert_equal 64, status.exitstatus, err
    assert_includes err, "old: RUBY_GC_HEAP_INIT_SLOTS=2000000 is not read by this Ruby: set " \
                         "RUBY_GC_HEAP_0_INIT_SLOTS … RUBY_GC_HEAP_4_INIT_SLOTS instead"
    assert_includes err, "conf: MALLOC_CONF=narenas:2 is read by jemalloc only, and conf runs glibc"
    refute File.exist?(out_dir), "a refused comparison leaves no run directory"
  end

  # A GC variable the app's Ruby reads runs as a row of its own, verified in the process, its check in the JSON.
  def test_a_gc_variable_runs_as_a_row_with_its_check_in_the_json
    out, err, status = mallard("compare", STABLE, "--json", "--out", File.join(@tmp, "run"),
                               "--config", "gc-cap=RUBY_GC_HEAP_GROWTH_FACTOR=1.1", "--duration", "3",
                               "--repeat", "1", timeout: 180)
    summary = JSON.parse(out)
    row = summary["rows"].find { |candidate| candidate["name"] == "gc-cap" }

    assert_equal 0, status.exitstatus, err
    assert_equal(%w[glibc gc-cap], summary["rows"].map { |candidate| candidate["name"] })
    assert row["verified"], "the row's process carries its variable: #{row.inspect}"
    assert_equal [{ "name" => "RUBY_GC_HEAP_GROWTH_FACTOR", "value" => "1.1", "status" => "read", "read" => "1.100000",
                    "default" => "1.800000" }], row["settings_checks"].map(&:compact)
    assert_equal 1, summary["configs"].find { |config| config["name"] == "gc-cap" }["deploy_effort"]
  end

  # compare --jemalloc-conf: a MALLOC_CONF row on jemalloc, its options read back by the agent inside the process.
  def test_a_jemalloc_conf_row_is_verified_by_jemallocs_own_options
    out, err, status = mallard("compare", STABLE, "--json", "--out", File.join(@tmp, "je"), "--allocators", "glibc",
                               "--jemalloc-conf", "decay-1s", "--duration", "3", "--repeat", "1", timeout: 180)
    summary = JSON.parse(out)
    row = summary["rows"].find { |candidate| candidate["name"] == "jemalloc/decay-1s" }

    assert_equal 0, status.exitstatus, err
    assert_equal(%w[glibc jemalloc/decay-1s], summary["rows"].map { |candidate| candidate["name"] })
    assert row["verified"], row.inspect
    assert_equal [{ "name" => "MALLOC_CONF", "value" => "dirty_decay_ms:1000", "status" => "read",
                    "read" => "dirty_decay_ms:1000", "inside" => { "opt.dirty_decay_ms" => 1000 } }],
                 row["settings_checks"].map(&:compact)
    assert_equal [{ "MALLOC_CONF" => "dirty_decay_ms:1000" }, "jemalloc"], row.values_at("settings", "base")
  end
end

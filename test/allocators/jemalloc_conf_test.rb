# frozen_string_literal: true

require "test_helper"

# compare --jemalloc-conf: a small matrix of MALLOC_CONF on jemalloc, each row built as --config's are, and checked
# against the options jemalloc took in the process.
class JemallocConfTest < Minitest::Test
  JemallocConf = Mallard::Allocators::JemallocConf
  SettingCheck = Mallard::Summary::SettingCheck
  CATALOG = Mallard::Allocators::Catalog.default

  def test_every_row_is_jemalloc_with_the_malloc_conf_it_is_named_for
    configs = JemallocConf.configs(CATALOG)

    assert_equal %w[decay-1s narenas-2 bg-thread combined rails-dockerfile].map { |name| "jemalloc/#{name}" },
                 configs.map(&:name)
    assert(configs.all? { |config| config.malloc == "jemalloc" && config.base == "jemalloc" })
    confs = configs.map { |config| config.settings["MALLOC_CONF"] }

    assert_equal ["dirty_decay_ms:1000", "narenas:2", "background_thread:true",
                  "dirty_decay_ms:1000,narenas:2,background_thread:true", nil], confs
    assert(configs.all? { |config| config.deploy_effort == Mallard::Allocators::DeployEffort::LIBRARY })
  end

  # Rails' generated Dockerfile preloads jemalloc and sets no MALLOC_CONF: its row says so rather than invent one.
  def test_rails_dockerfile_is_plain_preloaded_jemalloc
    rails = JemallocConf.configs(CATALOG, %w[rails-dockerfile]).first

    assert_empty rails.settings
    assert_equal CATALOG.fetch("jemalloc").sonames, rails.sonames
    assert_match(/no MALLOC_CONF, as Rails' generated Dockerfile ships it/, rails.summary)
  end

  def test_a_list_names_which_rows_in_its_order
    assert_equal %w[jemalloc/combined jemalloc/decay-1s],
                 JemallocConf.configs(CATALOG, %w[combined decay-1s combined]).map(&:name)
    assert_match JemallocConf::LIST, "bg-thread,narenas-2"
    refute_match JemallocConf::LIST, "path/to/app"
    refute_match JemallocConf::LIST, "decay-2s"
  end

  def test_pairs_jemalloc_took_in_the_process_hold
    options = { "opt.dirty_decay_ms" => 1000, "opt.narenas" => 2, "opt.background_thread" => true }

    assert_empty JemallocConf.problems("dirty_decay_ms:1000,narenas:2,background_thread:true", options)
    assert_equal ["MALLOC_CONF sets narenas:4 but jemalloc runs with opt.narenas 2"],
                 JemallocConf.problems("narenas:4", options)
    assert_empty JemallocConf.problems("stats_print:false", options), "an option not read back cannot be told"
    assert_empty JemallocConf.problems("narenas:4,narenas:2", options), "the last pair wins, as in jemalloc"
  end

  # The check keeps the options of the pairs it sets; without a reading (no agent), nothing is claimed.
  def test_confirm_keeps_the_options_read_in_the_checks
    checks = [SettingCheck.new(name: "MALLOC_CONF", value: "narenas:2", status: "read"),
              SettingCheck.new(name: "RUBY_GC_HEAP_GROWTH_FACTOR", value: "1.1", status: "read")]
    confirmed, not_taken = JemallocConf.confirm(checks, "opt.narenas" => 2, "opt.dirty_decay_ms" => 10_000)

    assert_empty not_taken
    assert_equal [{ "opt.narenas" => 2 }, nil], confirmed.map(&:inside)
    assert_equal ["MALLOC_CONF sets narenas:2 but jemalloc runs with opt.narenas 8"],
                 JemallocConf.confirm(checks, "opt.narenas" => 8).last
    assert_equal [checks, []], JemallocConf.confirm(checks, nil)
  end
end

# frozen_string_literal: true

require "test_helper"

# compare --config: any environment as a configuration, on glibc or another of the catalog's.
class ConfigOptionTest < Minitest::Test
  def parse(text) = Mallard::Allocators::ConfigOption.parse(text, Mallard::Allocators::Catalog.default)

  def test_variables_on_glibc_by_default
    config = parse("gc-cap=RUBY_GC_HEAP_GROWTH_FACTOR=1.1,RUBY_GC_HEAP_GROWTH_MAX_SLOTS=40000")

    assert_equal %w[gc-cap glibc], [config.name, config.malloc]
    assert_equal({ "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1", "RUBY_GC_HEAP_GROWTH_MAX_SLOTS" => "40000" }, config.settings)
    assert_equal Mallard::Allocators::DeployEffort::ENVIRONMENT, config.deploy_effort
    assert_nil config.env["LD_PRELOAD"]
    assert_equal "glibc", config.base, "its deploy snippets are built on the configuration it adds to"
  end

  # MALLOC_CONF's own commas stay in its value; the base's settings stay unless overridden.
  def test_on_another_configuration_with_malloc_confs_commas
    config = parse("je-decay=jemalloc-tuned,MALLOC_CONF=dirty_decay_ms:1000,narenas:2,RUBY_GC_HEAP_GROWTH_FACTOR=1.2")

    assert_equal "jemalloc", config.malloc
    assert_equal({ "MALLOC_CONF" => "dirty_decay_ms:1000,narenas:2", "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.2" },
                 config.settings)
    assert_includes config.summary, "with MALLOC_CONF=dirty_decay_ms:1000,narenas:2 RUBY_GC_HEAP_GROWTH_FACTOR=1.2"
  end

  # compare --cross: what a configuration adds to its base, on another of the catalog's, named by its parts.
  def test_what_it_adds_onto_another_configuration
    catalog = Mallard::Allocators::Catalog.default
    config = parse("warm=glibc-arena2,RUBY_GC_HEAP_GROWTH_FACTOR=1.1,after_boot=compact")
    crossed = config.onto(catalog.fetch("jemalloc"))

    assert_equal %w[jemalloc/warm jemalloc jemalloc compact],
                 [crossed.name, crossed.malloc, crossed.base, crossed.after_boot]
    assert_equal({ "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1" }, crossed.settings, "not glibc-arena2's MALLOC_ARENA_MAX")
  end

  # The process is verified to carry every variable, not only the allocator's own.
  def test_the_process_must_carry_each_variable
    config = parse("gc=RUBY_GC_HEAP_GROWTH_FACTOR=1.1")
    detection = Mallard::Allocators::Detection.new(name: "glibc")

    assert_empty config.verify(detection, { "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1" })
    assert_match(/RUBY_GC_HEAP_GROWTH_FACTOR is nil in the process, expected "1.1"/,
                 config.verify(detection, {}).join)
  end

  # A setting that is code: after_boot=warmup or compact, alone or beside variables, none of them in the environment.
  def test_an_action_after_boot_is_a_setting_of_its_own
    alone = parse("warm=after_boot=warmup")
    beside = parse("x=jemalloc,MALLOC_CONF=dirty_decay_ms:1000,narenas:2,after_boot=compact," \
                   "RUBY_GC_HEAP_GROWTH_FACTOR=1.1")

    assert_equal ["warmup", {}, "glibc"], [alone.after_boot, alone.settings, alone.base]
    assert_equal Mallard::Allocators::DeployEffort::APP_CODE, alone.deploy_effort
    assert_includes alone.summary, "with Process.warmup after boot"
    assert_equal "compact", beside.after_boot
    assert_equal({ "MALLOC_CONF" => "dirty_decay_ms:1000,narenas:2", "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1" },
                 beside.settings)
    refute beside.env.key?("after_boot")
    assert_equal Mallard::Allocators::DeployEffort::LIBRARY, beside.deploy_effort
  end

  # Refused before any row runs, with what that Ruby can do instead.
  def test_an_action_the_ruby_lacks_is_refused_naming_the_one_it_has
    row = Struct.new(:label, :allocator).new("warm", parse("warm=after_boot=warmup"))
    lacking = Mallard::Summary::SettingCheck.new(name: "after_boot", value: "warmup", status: "unread",
                                                 instead: "compact")

    assert_equal "warm: after_boot=warmup cannot run in this Ruby: it has no Process.warmup; after_boot=compact " \
                 "(GC.start(full_mark: true, immediate_sweep: true); GC.compact) is what it can do — nothing was run",
                 Mallard::Allocators::ConfigOption.refusal([[row, lacking]])
  end

  def test_what_cannot_be_a_configuration_is_refused
    { "nameonly" => /NAME=\[BASE,\]VAR=VALUE/, "glibc=MALLOC_ARENA_MAX=4" => /mallard has already/,
      "x=after_boot=later" => /after_boot takes warmup or compact, not "later"/,
      "x=jemalloc" => /names no variable/, "x=lower=1" => /not an environment variable's name/,
      "x=LD_PRELOAD=/tmp/lib.so" => /for the base configuration to set/, "x=nope,A=1" => /unknown allocator 'nope'/,
      "x=RUBY_GC_HEAP_GROWTH_FACTOR=1 2" => /value may hold only letters, digits/, "x=A=$(id)" => /value may hold/ }
      .each do |text, message|
        error = assert_raises(Mallard::UsageError, text) { parse(text) }
        assert_match message, error.message
      end
  end
end

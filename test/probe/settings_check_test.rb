# frozen_string_literal: true

require "test_helper"
require_relative "../support/rubies"

# Each setting as the subject's own Ruby and allocator took it, asked of real Rubies (Debian's 3.1, and the 3.3 built
# here) and real jemalloc before any row would run.
class SettingsCheckTest < Minitest::Test
  Check = Mallard::Probe::SettingsCheck
  SETTINGS = { "RUBY_GC_HEAP_INIT_SLOTS" => "2000000", "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1",
               "RUBY_GC_HEAP_FREE_SLOTS" => "-5", "RUBY_GC_MALLOC_LIMIT" => "lots", "RUBY_GC_NO_SUCH" => "1" }.freeze
  FOUR = %i[name value status instead].freeze

  def statuses(checks) = checks.to_h { |check| [check.name, check.status] }

  def test_ruby_3_1_reads_init_slots_and_sets_aside_what_it_must
    checks = Check.call(ruby: RbConfig.ruby, settings: SETTINGS, malloc: "glibc")
    growth = checks.find { |check| check.name == "RUBY_GC_HEAP_GROWTH_FACTOR" }

    assert_equal({ "RUBY_GC_HEAP_INIT_SLOTS" => "read", "RUBY_GC_HEAP_GROWTH_FACTOR" => "read",
                   "RUBY_GC_HEAP_FREE_SLOTS" => "ignored", "RUBY_GC_MALLOC_LIMIT" => "invalid",
                   "RUBY_GC_NO_SUCH" => "unread" }, statuses(checks))
    assert_equal %w[1.100000 1.800000], [growth.read, growth.default]
    assert_equal "it must be greater than 0", checks.find { |check| check.name == "RUBY_GC_HEAP_FREE_SLOTS" }.reason
  end

  def test_ruby_3_3_calls_init_slots_deprecated_and_names_the_per_pool_variables
    checks = Check.call(ruby: Rubies.path(Rubies::STOCK), settings: SETTINGS.slice("RUBY_GC_HEAP_INIT_SLOTS",
                                                                                   "RUBY_GC_HEAP_GROWTH_FACTOR"),
                        malloc: "glibc")

    assert_equal({ "RUBY_GC_HEAP_INIT_SLOTS" => "deprecated", "RUBY_GC_HEAP_GROWTH_FACTOR" => "read" },
                 statuses(checks))
    assert_equal "RUBY_GC_HEAP_%d_INIT_SLOTS", checks.first.instead
  end

  def test_malloc_conf_is_jemallocs_alone_and_a_pair_it_rejects_is_named
    jemalloc = Mallard::Allocators::Catalog.default.fetch("jemalloc").library_path
    glibc = Check.call(ruby: RbConfig.ruby, settings: { "MALLOC_CONF" => "narenas:2" }, malloc: "glibc")
    taken = Check.call(ruby: RbConfig.ruby, settings: { "MALLOC_CONF" => "narenas:2,dirty_decay_ms:1000" },
                       malloc: "jemalloc", preload: jemalloc)
    rejected = Check.call(ruby: RbConfig.ruby, settings: { "MALLOC_CONF" => "narenas:2,no_such:1" },
                          malloc: "jemalloc", preload: jemalloc)

    assert_equal "unread", glibc.first.status
    assert_equal "read", taken.first.status
    assert_equal ["invalid", "no_such:1"], [rejected.first.status, rejected.first.reason]
  end

  # A Ruby that does not run would say nothing of any variable: an error, not "not read" for each.
  def test_a_ruby_that_does_not_run_is_an_error_not_a_check
    error = assert_raises(Mallard::Error) do
      Check.call(ruby: "/bin/false", settings: { "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1" }, malloc: "glibc")
    end

    assert_match(%r{\A/bin/false did not run with the settings to check them \(pid \d+ exit 1\)}, error.message)
  end

  def test_settings_nothing_checks_start_no_ruby
    assert_empty Check.call(ruby: "/nonexistent/ruby", settings: { "MALLOC_ARENA_MAX" => "2" }, malloc: "glibc")
  end

  # An action after boot is code: the Ruby is asked whether it has the method, and one it lacks names what it can do.
  def test_an_action_after_boot_is_asked_of_the_ruby
    on31 = Check.call(ruby: RbConfig.ruby, settings: {}, malloc: "glibc", after_boot: "warmup")
    on33 = Check.call(ruby: Rubies.path(Rubies::STOCK), settings: { "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1" },
                      malloc: "glibc", after_boot: "warmup")

    assert_equal([%w[after_boot warmup unread compact]], on31.map { |check| check.to_h.values_at(*FOUR) })
    assert_equal({ "RUBY_GC_HEAP_GROWTH_FACTOR" => "read", "after_boot" => "read" }, statuses(on33))
    assert Check.call(ruby: RbConfig.ruby, settings: {}, malloc: "glibc", after_boot: "compact").all?(&:taken?)
  end
end

# frozen_string_literal: true

require "test_helper"
require "tmpdir"

class CatalogTest < Minitest::Test
  Detection = Mallard::Allocators::Detection

  def setup
    @finder = Mallard::Allocators::LibraryFinder.new(ldconfig_listing: "", dirs: [])
    @catalog = Mallard::Allocators::Catalog.new(finder: @finder)
  end

  def test_baseline_first_and_the_issue_names_present
    assert_equal %w[glibc glibc-arena2 glibc-trim jemalloc jemalloc-tuned tcmalloc mimalloc], @catalog.names
  end

  def test_every_environment_sets_or_unsets_all_managed_variables
    env = @catalog.fetch("glibc-arena2").env

    assert_equal({ "LD_PRELOAD" => nil, "MALLOC_ARENA_MAX" => "2", "MALLOC_CONF" => nil }, env)
  end

  def test_a_missing_library_names_the_packages_that_provide_it
    jemalloc = @catalog.fetch("jemalloc")

    refute_predicate jemalloc, :available?
    assert_equal "libjemalloc.so.2 not found; install libjemalloc2 (Debian/Ubuntu), jemalloc (Alpine), " \
                 "jemalloc (Homebrew)", jemalloc.unavailable_reason
    assert_raises(Mallard::Error) { jemalloc.env }
  end

  def test_a_found_library_is_preloaded
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "libjemalloc.so.2"), "")
      finder = Mallard::Allocators::LibraryFinder.new(ldconfig_listing: "", dirs: [dir])
      env = Mallard::Allocators::Catalog.new(finder: finder).fetch("jemalloc-tuned").env

      assert_equal File.join(dir, "libjemalloc.so.2"), env["LD_PRELOAD"]
      assert_equal "narenas:2,dirty_decay_ms:1000", env["MALLOC_CONF"]
    end
  end

  def test_verify_accepts_the_matching_process
    detection = Detection.new(name: "glibc", via: "default")

    assert_empty @catalog.fetch("glibc-arena2").verify(detection, { "MALLOC_ARENA_MAX" => "2" })
  end

  def test_verify_names_each_way_a_configuration_failed
    detection = Detection.new(name: "glibc", via: "default")
    problems = @catalog.fetch("jemalloc-tuned").verify(detection, {})

    assert_equal ["expected jemalloc but the process uses glibc",
                  'MALLOC_CONF is nil in the process, expected "narenas:2,dirty_decay_ms:1000"'], problems
  end

  def test_glibc_baseline_rejects_a_leftover_arena_limit
    problems = @catalog.fetch("glibc").verify(Detection.new(name: "glibc"), { "MALLOC_ARENA_MAX" => "4" })

    assert_equal ['MALLOC_ARENA_MAX is "4" in the process, expected nil'], problems
  end

  def test_glibc_trim_is_listed_unavailable_with_its_reason
    refute_predicate @catalog.fetch("glibc-trim"), :available?
    assert_match(/C extension/, @catalog.fetch("glibc-trim").unavailable_reason)
  end

  def test_unknown_name_is_a_usage_error
    error = assert_raises(Mallard::UsageError) { @catalog.fetch("hoard") }
    assert_match(/known: glibc, /, error.message)
  end
end

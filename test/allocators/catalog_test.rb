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

  def test_glibc_trim_is_glibc_plus_a_required_extension
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "trim_ext.so"), "")
      trim = Mallard::Trim::Availability.new(extension: File.join(dir, "trim_ext.so"))
      glibc_trim = Mallard::Allocators::Catalog.new(finder: @finder, trim: trim).fetch("glibc-trim")

      assert_equal({ "LD_PRELOAD" => nil, "MALLOC_ARENA_MAX" => nil, "MALLOC_CONF" => nil }, glibc_trim.env)
      assert_equal ["mallard/trim"], glibc_trim.ruby_requires
      assert_equal "-I#{Mallard::Allocators::Allocator::LIB} -rmallard/trim -W0", glibc_trim.rubyopt("-W0")
    end
  end

  def test_other_configurations_leave_rubyopt_alone
    assert_empty @catalog.fetch("jemalloc").ruby_requires
    assert_equal "-W0", @catalog.fetch("jemalloc").rubyopt("-W0")
    assert_nil @catalog.fetch("glibc").rubyopt(nil)
  end

  def test_verify_glibc_trim_needs_the_extension_mapped
    glibc_trim = @catalog.fetch("glibc-trim")
    detection = Detection.new(name: "glibc", via: "default")
    mapped = ["/usr/lib/x86_64-linux-gnu/libc.so.6", "/srv/gems/mallard-0.1.0/lib/mallard/trim_ext.so"]

    assert_empty glibc_trim.verify(detection, {}, mapped_paths: mapped)
    problems = glibc_trim.verify(detection, {}, mapped_paths: mapped.take(1))
    assert_equal 1, problems.size
    assert_match(%r{\Amallard/trim_ext.so is not loaded in the process; start it with RUBYOPT="-I\S+ -rmallard/trim"},
                 problems.first)
  end

  def test_unknown_name_is_a_usage_error
    error = assert_raises(Mallard::UsageError) { @catalog.fetch("hoard") }
    assert_match(/known: glibc, /, error.message)
  end
end

# frozen_string_literal: true

require "test_helper"
require "tmpdir"

class TrimAvailabilityTest < Minitest::Test
  Availability = Mallard::Trim::Availability

  def test_a_missing_extension_is_unavailable_and_says_how_to_build_it
    availability = Availability.new(extension: "/nonexistent/mallard/trim_ext.so")

    refute_predicate availability, :available?
    assert_match(%r{/nonexistent/mallard/trim_ext.so is missing; build it with `rake compile`}, availability.reason)
  end

  def test_the_reason_extconf_recorded_wins
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "trim_ext.unavailable"), "malloc_trim is not available in this C library\n")
      availability = Availability.new(extension: File.join(dir, "trim_ext.so"))

      assert_equal "malloc_trim is not available in this C library", availability.reason
    end
  end

  def test_a_built_extension_is_available
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "trim_ext.so"), "")
      availability = Availability.new(extension: File.join(dir, "trim_ext.so"))

      assert_predicate availability, :available?
      assert_nil availability.reason
    end
  end

  def test_the_catalog_blocks_glibc_trim_with_the_reason
    finder = Mallard::Allocators::LibraryFinder.new(ldconfig_listing: "", dirs: [])
    trim = Availability.new(extension: "/nonexistent/mallard/trim_ext.so")
    glibc_trim = Mallard::Allocators::Catalog.new(finder: finder, trim: trim).fetch("glibc-trim")

    refute_predicate glibc_trim, :available?
    assert_match(/\Aneeds mallard's C extension: .*trim_ext.so is missing/, glibc_trim.unavailable_reason)
    assert_raises(Mallard::Error) { glibc_trim.env }
  end
end

# frozen_string_literal: true

require "test_helper"
require "tmpdir"

class LibraryFinderTest < Minitest::Test
  def setup
    @dir = Dir.mktmpdir
    @lib = touch("libjemalloc.so.2")
  end

  def teardown
    FileUtils.remove_entry(@dir)
  end

  def test_prefers_the_ld_so_cache_entry_for_this_architecture
    listing = <<~LDCONFIG
      \tlibjemalloc.so.2 (libc6) => #{touch('lib32-libjemalloc.so.2')}
      \tlibjemalloc.so.2 (libc6,x86-64) => #{@lib}
    LDCONFIG
    finder = Mallard::Allocators::LibraryFinder.new(ldconfig_listing: listing, dirs: [], cpu: "x86_64")

    assert_equal @lib, finder.find(%w[libjemalloc.so.2])
  end

  def test_falls_back_to_standard_directories
    finder = Mallard::Allocators::LibraryFinder.new(ldconfig_listing: "", dirs: ["/nonexistent", @dir])

    assert_equal @lib, finder.find(%w[libjemalloc.so.2])
  end

  def test_tries_sonames_in_order
    other = touch("libtcmalloc.so.4")
    finder = Mallard::Allocators::LibraryFinder.new(ldconfig_listing: "", dirs: [@dir])

    assert_equal other, finder.find(%w[libtcmalloc_minimal.so.4 libtcmalloc.so.4])
  end

  def test_ignores_cache_entries_whose_file_is_gone
    listing = "\tlibmimalloc.so.2 (libc6,x86-64) => /nonexistent/libmimalloc.so.2\n"
    finder = Mallard::Allocators::LibraryFinder.new(ldconfig_listing: listing, dirs: [], cpu: "x86_64")

    assert_nil finder.find(%w[libmimalloc.so.2])
  end

  private

  def touch(name)
    File.join(@dir, name).tap { |path| File.write(path, "") }
  end
end

# frozen_string_literal: true

require "test_helper"

class DetectionTest < Minitest::Test
  LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
  JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
  TCMALLOC = "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4.5.10"
  MIMALLOC = "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0"
  LIBRUBY = "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1.2"

  def test_nothing_mapped_but_libc_is_glibc_by_default
    detection = detect([LIBRUBY, LIBC])

    assert_equal %w[glibc default], [detection.name, detection.via]
    assert_equal LIBC, detection.path
  end

  def test_preloaded_jemalloc
    detection = detect([JEMALLOC, LIBRUBY, LIBC], "LD_PRELOAD" => JEMALLOC)

    assert_equal ["jemalloc", "preloaded", JEMALLOC], [detection.name, detection.via, detection.path]
    assert_empty detection.preload_missing
  end

  def test_jemalloc_mapped_without_a_preload_is_linked
    detection = detect([LIBRUBY, JEMALLOC, LIBC])

    assert_equal %w[jemalloc linked], [detection.name, detection.via]
  end

  def test_a_bare_soname_preload_matches_the_versioned_file
    detection = detect([MIMALLOC, LIBC], "LD_PRELOAD" => "libmimalloc.so.2")

    assert_equal %w[mimalloc preloaded], [detection.name, detection.via]
  end

  def test_a_preload_that_is_not_mapped_is_reported_missing
    detection = detect([LIBC], "LD_PRELOAD" => "/opt/nowhere/libjemalloc.so.2")

    assert_equal "glibc", detection.name
    assert_equal ["/opt/nowhere/libjemalloc.so.2"], detection.preload_missing
  end

  def test_the_preloaded_allocator_wins_over_a_linked_one
    detection = detect([JEMALLOC, TCMALLOC, LIBC], "LD_PRELOAD" => TCMALLOC)

    assert_equal "tcmalloc", detection.name
    assert_equal [JEMALLOC], detection.also_mapped
  end

  def test_system_wide_preload_counts
    detection = Mallard::Allocators::Detection.detect(mapped_paths: [JEMALLOC, LIBC], environ: {},
                                                      system_preload: [JEMALLOC])

    assert_equal "preloaded", detection.via
  end

  def test_musl
    assert_equal "musl", detect(["/lib/ld-musl-x86_64.so.1"]).name
  end

  private

  def detect(paths, environ = {})
    Mallard::Allocators::Detection.detect(mapped_paths: paths, environ: environ, system_preload: [])
  end
end

# frozen_string_literal: true

require "test_helper"

class FindingsTest < Minitest::Test
  include Diagnoses

  def test_threaded_glibc_without_arena_limit_warns_with_the_arena_ceiling
    finding = only(findings_for(diagnosis(threads: 12), cpus: 4))

    assert_equal "warning", finding.level
    assert_equal "glibc malloc with 12 threads and no arena limit: fragmentation risk", finding.message
    assert_match(/up to 32 arenas here/, finding.advice)
  end

  def test_an_arena_limit_in_glibc_tunables_counts
    env = { "GLIBC_TUNABLES" => "glibc.malloc.arena_max=2" }

    assert_empty findings_for(diagnosis(env: env))
  end

  def test_arena_limit_silences_the_warning
    assert_empty findings_for(diagnosis(env: { "MALLOC_ARENA_MAX" => "2" }))
  end

  def test_single_threaded_glibc_is_only_information
    assert_equal "info", only(findings_for(diagnosis(threads: 1))).level
  end

  def test_failed_verification_is_an_error_and_comes_first
    found = findings_for(diagnosis(expected: "jemalloc",
                                   verification_problems: ["expected jemalloc but the process uses glibc"]))

    assert_equal "error", found.first.level
    assert_match(/the jemalloc configuration did not take effect: expected jemalloc/, found.first.message)
  end

  def test_unmapped_preload_is_an_error
    subject = diagnosis
    subject.allocator.preload_missing = ["/opt/libjemalloc.so.2"]

    error = findings_for(subject).first

    assert_equal "error", error.level
    assert_equal "LD_PRELOAD names /opt/libjemalloc.so.2, which is not mapped: the preload did not take effect",
                 error.message
  end

  def test_malloc_conf_without_jemalloc_has_no_effect
    found = findings_for(diagnosis(env: { "MALLOC_ARENA_MAX" => "2", "MALLOC_CONF" => "narenas:2" }))

    assert_equal ["MALLOC_CONF=narenas:2 is set, but jemalloc is not loaded, so it has no effect"], found.map(&:message)
  end

  def test_arena_limit_under_another_allocator_is_ignored
    found = findings_for(diagnosis(allocator: "jemalloc", via: "preloaded", threads: 2,
                                   env: { "MALLOC_ARENA_MAX" => "2" }))

    assert_match(/only glibc malloc reads it and this process uses jemalloc/, only(found).message)
  end

  def test_untuned_jemalloc_with_threads_suggests_the_tuned_entry
    found = findings_for(diagnosis(allocator: "jemalloc", via: "linked"))

    assert_match(/narenas:2,dirty_decay_ms:1000/, only(found).advice)
  end

  def test_two_allocators_mapped
    subject = diagnosis(allocator: "jemalloc", via: "preloaded", env: { "MALLOC_CONF" => "narenas:2" })
    subject.allocator.also_mapped = ["/usr/lib/libtcmalloc.so.4"]

    assert_match(/more than one allocator is mapped/, only(findings_for(subject)).message)
  end

  def test_swap_makes_rss_untrustworthy
    subject = diagnosis(env: { "MALLOC_ARENA_MAX" => "2" })
    subject.memory.swap_kb = 2048

    assert_equal "2.0 MB of this process is swapped out, so its RSS understates its memory",
                 only(findings_for(subject)).message
  end

  def test_not_ruby
    found = findings_for(diagnosis(ruby: false, threads: 1))

    assert_includes found.map(&:message), "not a Ruby process (/usr/bin/ruby3.1)"
  end

  private

  def only(found)
    assert_equal 1, found.size, found.map(&:message).inspect
    found.first
  end
end

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

  def test_a_deprecated_variable_names_the_per_pool_ones_its_ruby_reads
    subject = checked(check("RUBY_GC_HEAP_INIT_SLOTS", "2000000", "deprecated", instead: "RUBY_GC_HEAP_%d_INIT_SLOTS"),
                      check("RUBY_GC_HEAP_GROWTH_FACTOR", "1.1", "read", read: "1.100000"))
    subject.ruby.version = "3.3.8"
    finding = only(findings_for(subject))

    assert_equal %w[warning RUBY_GC_HEAP_INIT_SLOTS=2000000], [finding.level, finding.message.split.first]
    assert_match(/not read by Ruby 3\.3\.8/, finding.message)
    assert_match(/RUBY_GC_HEAP_0_INIT_SLOTS … RUBY_GC_HEAP_4_INIT_SLOTS/, finding.advice)
  end

  def test_an_ignored_variable_gives_rubys_reason_and_the_default_it_keeps
    ignored = check("RUBY_GC_HEAP_FREE_SLOTS", "-5", "ignored", default: "4096", reason: "it must be greater than 0")
    finding = only(findings_for(checked(ignored)))

    assert_equal "RUBY_GC_HEAP_FREE_SLOTS=-5 is ignored by Ruby 3.1.2, as it must be greater than 0", finding.message
    assert_match(/keeps its default \(4096\)/, finding.advice)
  end

  def test_a_per_pool_variable_on_a_ruby_of_one_pool_names_the_one_it_reads
    found = findings_for(checked(check("RUBY_GC_HEAP_0_INIT_SLOTS", "5", "unread")))

    assert_match(/set RUBY_GC_HEAP_INIT_SLOTS instead/, only(found).advice)
  end

  def test_malloc_conf_without_jemalloc_is_said_once
    found = findings_for(checked(check("MALLOC_CONF", "narenas:2", "unread"), env: { "MALLOC_CONF" => "narenas:2" }))

    assert_match(/jemalloc is not loaded/, only(found).message)
  end

  def test_a_pair_jemalloc_rejects_is_named
    conf = "narenas:2,bogus:1"
    found = findings_for(diagnosis(allocator: "jemalloc", via: "preloaded", env: { "MALLOC_CONF" => conf },
                                   settings: [check("MALLOC_CONF", conf, "invalid", reason: "bogus:1")]))

    assert_equal "MALLOC_CONF=narenas:2,bogus:1 has pairs jemalloc rejects: bogus:1", only(found).message
  end

  def test_yjit_settings_refused_missing_or_meant_off_but_on
    found = findings_for(checked(check("RUBY_YJIT_ENABLE", "0", "read", read: "on"),
                                 check("--yjit-mem-size", "16", "invalid", reason: "invalid YJIT option"),
                                 check("--yjit", nil, "unread")))

    assert_equal ["--yjit is not read: Ruby 3.1.2 was built without YJIT",
                  "--yjit-mem-size=16 is refused by Ruby 3.1.2: invalid YJIT option",
                  "RUBY_YJIT_ENABLE=0 turns YJIT on in Ruby 3.1.2"], found.map(&:message).sort
  end

  def test_settings_taken_are_no_finding_and_unchecked_ones_are_said
    unchecked = checked(settings_unchecked: "could not start /usr/bin/ruby")

    assert_empty findings_for(checked(check("RUBY_YJIT_ENABLE", "1", "read", read: "on")))
    assert_match(/not checked: could not start/, only(findings_for(unchecked)).message)
  end

  # A worker sharing a fifth of its memory loaded the app itself, or wrote over what it shared: said, both named.
  def test_workers_that_share_little_are_said_with_what_one_more_costs
    finding = only(findings_for(checked(tree: puma_tree(shared_kb: 14_336))))

    assert_equal "info", finding.level
    assert_equal "its 2 workers share 20.0% of their memory (the median worker's); each holds 56.0 MB of its own, " \
                 "what one more worker would add now", finding.message
    assert_match(/preload_app!.*unshare it as they serve/, finding.advice)
    assert_empty findings_for(checked(tree: puma_tree(shared_kb: 61_440))), "preloaded: most of it shared"
  end

  private

  # A process whose allocator gives no finding of its own (an arena limit set), with these settings checked.
  def checked(*settings, env: {}, **overrides)
    diagnosis(env: { "MALLOC_ARENA_MAX" => "2" }.merge(env), settings: settings, **overrides)
  end

  def only(found)
    assert_equal 1, found.size, found.map(&:message).inspect
    found.first
  end
end

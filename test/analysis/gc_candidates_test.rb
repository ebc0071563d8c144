# frozen_string_literal: true

require "test_helper"
require_relative "../support/rubies"

# compare --gc's suggestions, from the baseline's own GC figures: each set suggested only where the GC showed the
# reason for it, and each kept with that reason.
class GcCandidatesTest < Minitest::Test
  Candidates = Mallard::Analysis::GcCandidates

  def gc(pages: [100, 100], live: 200_000, available: 300_000, major: 0, major_by: {}, minor_by: {}, runs: 40,
         available_start: available, old: 150_000)
    Mallard::Summary::Gc.new(runs: runs, major: major, minor: runs - major, major_by: major_by, minor_by: minor_by,
                             heap_allocated_pages: Mallard::Summary::Span.new(start: pages.first, end: pages.last),
                             heap_live_slots: Mallard::Summary::Span.new(start: live / 2, end: live),
                             heap_available_slots: Mallard::Summary::Span.new(start: available_start, end: available),
                             old_objects: Mallard::Summary::Span.new(start: old, end: old))
  end

  def by_name(suggestions) = suggestions.to_h { |found| [found.name, found] }

  def test_a_heap_that_grew_gets_a_smaller_growth_factor_capped_at_a_tenth_of_the_live_slots
    growth = by_name(Candidates.call(gc(pages: [120, 340], live: 254_321)))["gc-growth"]

    assert growth.suggested
    assert_equal "heap_grew", growth.finding
    assert_equal({ "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1", "RUBY_GC_HEAP_GROWTH_MAX_SLOTS" => "25000" }, growth.settings)
    assert_equal({ "pages_start" => 120, "pages_end" => 340, "live_share" => 0.848 }, growth.figures)
  end

  # A boot that allocated ten times what it keeps left a heap mostly empty before the load began.
  def test_a_heap_mostly_free_gets_the_growth_suggestion_too
    growth = by_name(Candidates.call(gc(pages: [900, 900], live: 40_000, available: 400_000)))["gc-growth"]

    assert_equal [true, "heap_mostly_free", 0.1], [growth.suggested, growth.finding, growth.figures["live_share"]]
  end

  def test_a_flat_heap_gets_no_growth_suggestion_and_says_why
    growth = by_name(Candidates.call(gc(pages: [120, 120], live: 200_000, available: 300_000)))["gc-growth"]

    refute growth.suggested
    assert_equal "heap_flat", growth.finding
    assert_nil growth.settings
  end

  # Only a major GC frees empty pages: the agent's own full GCs do not count as the app's.
  def test_free_slot_ratios_only_where_the_app_ran_major_gcs
    forced_only = by_name(Candidates.call(gc(major: 3, major_by: { "force" => 3 })))["gc-free"]
    natural = by_name(Candidates.call(gc(major: 4, major_by: { "force" => 1, "nofree" => 3 })))["gc-free"]

    assert_equal [false, "no_majors"], [forced_only.suggested, forced_only.finding]
    assert_equal [true, "majors_ran", { "majors" => 3 }], [natural.suggested, natural.finding, natural.figures]
    assert_equal "0.20", natural.settings["RUBY_GC_HEAP_FREE_SLOTS_MAX_RATIO"]
  end

  def test_lower_malloc_limits_where_malloc_triggered_a_fifth_of_the_gcs
    many = by_name(Candidates.call(gc(runs: 40, minor_by: { "malloc" => 6 }, major_by: { "oldmalloc" => 2 })))
    few = by_name(Candidates.call(gc(runs: 40, minor_by: { "malloc" => 7 })))

    assert_equal [true, { "malloc_gcs" => 8, "runs" => 40 }], [many["gc-malloc"].suggested, many["gc-malloc"].figures]
    refute few["gc-malloc"].suggested
  end

  # Every variable suggested is one every Ruby mallard supports reads.
  def test_every_suggested_variable_is_read_from_ruby_3_1_on
    suggested = Candidates.call(gc(pages: [1, 2], major: 1, minor_by: { "malloc" => 40 }))

    assert_equal 3, suggested.count(&:suggested)
    variables = suggested.select(&:suggested).flat_map { |found| found.settings.keys }
    assert_empty variables - Mallard::Analysis::GcSettings::COMMON
  end

  # Read as given by the Rubies themselves: Ruby takes the free-slot ratios only in order (min < goal < max); a full
  # GC and compact after boot, every one of them.
  def test_every_suggested_set_is_taken_by_the_rubies_themselves
    suggested = Candidates.call(gc(pages: [1, 2], major: 1, minor_by: { "malloc" => 40 }, available_start: 900_000),
                                after_boot: "compact").select(&:suggested)
    assert_equal 4, suggested.size

    sets = suggested.map { |found| Mallard::Allocators::AfterBoot.split(found.settings) }
    [RbConfig.ruby, Rubies.path(Rubies::STOCK)].product(sets).each do |ruby, (set, action)|
      checks = Mallard::Probe::SettingsCheck.call(ruby: ruby, settings: set, malloc: "glibc", after_boot: action)
      assert checks.all?(&:taken?), "#{ruby}: #{checks.map(&:to_h)}"
    end
  end

  # The boot left far more heap than the app keeps: the boot-heavy fixture's baseline, 1,865,668 slots as the load
  # began and 542,302 live at its end (its first major GCs freed the boot's objects under load).
  def test_a_boot_that_left_far_more_heap_than_is_live_gets_the_action_after_boot
    boot = by_name(Candidates.call(gc(available_start: 1_865_668, live: 542_302, available: 542_644, major: 2),
                                   after_boot: "warmup"))["gc-after-boot"]

    assert_equal [true, "boot_left_heap", { "after_boot" => "warmup" }], [boot.suggested, boot.finding, boot.settings]
    assert_equal 0.291, boot.figures["live_share"]
  end

  # What the app keeps is its live set after a major GC, not the live slots as the load ended, which count the garbage
  # since the last GC: a fresh-clone run of the boot-heavy fixture ended at 702,003 live of the 1,278,509 its boot's
  # heap held (0.549, not mostly free), where an earlier run's ended at 542,302 of 1,865,668 (0.291).
  def test_the_live_set_after_a_major_gc_is_what_the_app_keeps
    heap = gc(available_start: 1_278_509, live: 702_003, available: 1_278_509, major: 4)
    live_set = Mallard::Summary::LiveSet.new(start: 480_000, end: 455_000)
    kept = by_name(Candidates.call(heap, live_set: live_set, after_boot: "warmup"))

    boot = kept["gc-after-boot"]

    assert_equal [true, "boot_left_heap", 0.356], [boot.suggested, boot.finding, boot.figures["live_share"]]
    assert_equal 0.356, kept["gc-growth"].figures["live_share"]
    refute by_name(Candidates.call(heap, after_boot: "warmup"))["gc-after-boot"].suggested, "the live slots at the end"
  end

  # No major GC under load: what the boot left in the old generation was never collected (issue 41's app).
  def test_no_major_gc_under_load_gets_it_too_as_the_ruby_can_run_it
    boot = by_name(Candidates.call(gc(old: 1_510_276, major: 1, major_by: { "force" => 1 }),
                                   after_boot: "compact"))["gc-after-boot"]

    assert_equal [true, "old_uncollected", { "after_boot" => "compact" }],
                 [boot.suggested, boot.finding, boot.settings]
    assert_equal 1_510_276, boot.figures["old_start"]
  end

  def test_no_action_after_boot_where_the_heap_is_kept_or_the_target_has_no_boot_to_put_it_in
    kept = by_name(Candidates.call(gc(major: 2), after_boot: "warmup"))["gc-after-boot"]
    unhosted = by_name(Candidates.call(gc(available_start: 2_000_000, live: 100_000)))["gc-after-boot"]

    assert_equal([[false, "boot_heap_kept"], [false, "no_boot_hook"]],
                 [kept, unhosted].map { |found| [found.suggested, found.finding] })
  end

  def test_without_gc_figures_nothing_is_suggested
    assert_equal([[false, "no_gc_figures"]], Candidates.call(nil).map { |found| [found.suggested, found.finding] })
  end
end

# frozen_string_literal: true

require "test_helper"

# What compare --shape's values mean: workers × threads, preloaded in cluster mode unless -nopreload.
class PumaShapeTest < Minitest::Test
  PumaShape = Mallard::PumaShape

  def test_a_cluster_shape_is_preloaded_unless_told_not
    shape = PumaShape.parse("2x5")
    nopreload = PumaShape.parse("2x5-nopreload")

    assert_equal [2, 5, true, true], [shape.workers, shape.threads, shape.cluster?, shape.preloaded?]
    assert_equal [2, 5, false], [nopreload.workers, nopreload.threads, nopreload.preloaded?]
    assert_equal %w[2x5 2x5-nopreload], [shape.label, nopreload.label]
    refute_equal shape, nopreload
    assert_equal PumaShape.parse("2x5"), shape
  end

  # One worker is cluster mode all the same: a master that forks it.
  def test_one_worker_is_a_master_and_a_worker_and_zero_is_single_mode
    assert_predicate PumaShape.parse("1x5"), :cluster?
    single = PumaShape.parse("0x5")

    refute_predicate single, :cluster?
    refute_predicate single, :preloaded?, "single mode has no master to preload in"
    assert_equal "0x5", single.label
  end

  def test_what_puma_cannot_run_is_refused
    { "2x" => /takes WxT/, "x5" => /takes WxT/, "2*5" => /takes WxT/, "2x5-reforks" => /takes WxT/, "" => /takes WxT/,
      "2x5-refork=" => /takes WxT/, "0x5-nopreload" => /single mode .* no master/,
      "2x0" => /threads must be between 1 and 1024/, "300x5" => /workers must be at most 256/ }.each do |text, message|
      error = assert_raises(Mallard::UsageError, text) { PumaShape.parse(text) }
      assert_match message, error.message, text
    end
  end

  # fork_worker: worker 0 loads the app and forks the others, and again after N requests (Puma's 1000 unless given).
  # mallard does not ask Puma to preload it (Puma 5 would then never refork).
  def test_refork_is_fork_worker_after_n_requests
    shape = PumaShape.parse("2x5-refork")
    given = PumaShape.parse("3x4-refork=50")

    assert_equal [true, true, false, 1000, "2x5-refork"],
                 [shape.refork?, shape.fork_worker?, shape.preloaded?, shape.refork_after, shape.label]
    assert_equal [50, "3x4-refork=50"], [given.refork_after, given.label]
    assert_equal shape, PumaShape.parse("2x5-refork=1000"), "the default written out is the same shape"
    assert_equal given, PumaShape.parse(given.label), "a label parses back to its shape"
    assert_nil PumaShape.parse("2x5").refork_after
  end

  def test_warmup_and_compact_are_preloaded_with_an_action_before_fork
    warmup, compact = %w[2x5-warmup 2x5-compact].map { |text| PumaShape.parse(text) }

    assert_equal [true, "warmup", false], [warmup.preloaded?, warmup.after_boot, warmup.refork?]
    assert_equal [true, "compact"], [compact.preloaded?, compact.after_boot]
    assert_nil PumaShape.parse("2x5").after_boot
  end

  def test_pitchfork_is_workers_of_one_thread_reforking
    shape = PumaShape.parse("4x1-pitchfork=200")

    assert_equal [true, true, false, 200, "4x1-pitchfork=200"],
                 [shape.pitchfork?, shape.refork?, shape.fork_worker?, shape.refork_after, shape.label]
    assert_equal 1000, PumaShape.parse("2x1-pitchfork").refork_after
  end

  def test_what_a_variant_cannot_run_is_refused
    { "0x5-refork" => /single mode .* no -refork/, "0x1-pitchfork" => /single mode .* no -pitchfork/,
      "0x5-warmup" => /no -warmup/, "1x5-refork" => /give 2 or more workers/,
      "2x5-pitchfork" => /one request at a time per worker: write 2x1/,
      "2x5-warmup=10" => /=N .* -refork and -pitchfork/,
      "2x5-refork=0" => /give N of 1 or more/ }.each do |text, message|
      error = assert_raises(Mallard::UsageError, text) { PumaShape.parse(text) }
      assert_match message, error.message, text
    end
  end
end

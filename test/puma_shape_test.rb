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
    { "2x" => /takes WxT/, "x5" => /takes WxT/, "2*5" => /takes WxT/, "2x5-refork" => /takes WxT/, "" => /takes WxT/,
      "0x5-nopreload" => /single mode .* no master/, "2x0" => /threads must be between 1 and 1024/,
      "300x5" => /workers must be at most 256/ }.each do |text, message|
      error = assert_raises(Mallard::UsageError, text) { PumaShape.parse(text) }
      assert_match message, error.message, text
    end
  end
end

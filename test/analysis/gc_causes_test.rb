# frozen_string_literal: true

require "test_helper"

# Each GC cause a run met, said in a line; a cause Ruby may add later is named as unknown, not dropped.
class GcCausesTest < Minitest::Test
  GcCauses = Mallard::Analysis::GcCauses

  def test_the_causes_that_occurred_and_only_those
    meanings = GcCauses.call({ "nofree" => 50, "shady" => 2 }, { "newobj" => 520 })

    assert_equal ["major by nofree", "major by shady", "minor by newobj"], meanings.keys
    assert_match(/no free slot/, meanings["major by nofree"])
    assert_match(/C extensions/, meanings["major by shady"])
  end

  def test_a_cause_without_a_line_is_said_to_be_unknown
    assert_equal({ "major by wibble" => GcCauses::UNKNOWN }, GcCauses.call({ "wibble" => 1 }, nil))
  end

  def test_every_cause_of_this_ruby_has_a_line
    info = GC.latest_gc_info
    assert_includes GcCauses::MINOR.keys + GcCauses::MAJOR.keys, info[:gc_by].to_s
  end
end

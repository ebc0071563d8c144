# frozen_string_literal: true

require "test_helper"

# --yjit on, off or a size against what the app said from inside: at its end, else at its boot; a size by the code
# region YJIT reserved.
class SubjectRubyTest < Minitest::Test
  SubjectRuby = Mallard::Target::SubjectRuby

  def test_yjit_as_asked_is_no_mismatch
    assert_nil SubjectRuby.yjit_mismatch("on", "yjit_at_boot" => false, "yjit_at_end" => true)
    assert_nil SubjectRuby.yjit_mismatch("off", "yjit_at_boot" => false, "yjit_at_end" => false)
  end

  def test_the_boot_answers_when_the_end_could_not_say
    assert_nil SubjectRuby.yjit_mismatch("on", "yjit_at_boot" => true, "yjit_at_end" => nil)
    assert_equal "YJIT was off in the app, not on", SubjectRuby.yjit_mismatch("on", "yjit_at_boot" => false)
  end

  def test_yjit_turned_on_by_the_app_or_never_reported_is_a_mismatch
    assert_equal "YJIT was on in the app, not off", SubjectRuby.yjit_mismatch("off", "yjit_at_end" => true)
    assert_equal "YJIT was not reported in the app, not on", SubjectRuby.yjit_mismatch("on", {})
  end

  def test_a_size_shows_as_the_code_region_reserved
    inside = { "yjit_at_end" => true, "yjit_region_bytes" => 16 * 1024 * 1024 }

    assert_nil SubjectRuby.yjit_mismatch("16", inside)
    assert_nil SubjectRuby.yjit_mismatch("on", inside)
    assert_equal "YJIT's code region was 16 MiB in the app, not the 32 MiB asked",
                 SubjectRuby.yjit_mismatch("32", inside)
    assert_equal "YJIT's code region was not reported in the app, not the 32 MiB asked",
                 SubjectRuby.yjit_mismatch("32", "yjit_at_end" => true)
    assert_equal "YJIT was off in the app, not on", SubjectRuby.yjit_mismatch("32", "yjit_at_end" => false)
  end
end

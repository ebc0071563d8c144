# frozen_string_literal: true

require "test_helper"
require "json"

# `mallard doctor` starting a real Ruby under glibc-trim, and seeing the extension take effect.
class TrimDoctorTest < Minitest::Test
  include Processes

  GLIBC_TRIM = Mallard::Allocators::Catalog.default.fetch("glibc-trim")

  def test_a_command_started_under_glibc_trim_is_verified
    skip "glibc-trim is unavailable here: #{GLIBC_TRIM.unavailable_reason}" unless GLIBC_TRIM.available?

    out, err, status = mallard("doctor", "--json", "--wait", "0.5", "--allocator", "glibc-trim", "--",
                               Gem.ruby, "-e", "sleep")
    report = JSON.parse(out)

    assert_equal 0, status.exitstatus, err
    assert_equal({ "name" => "glibc-trim", "verified" => true, "problems" => [] }, report["expected"])
    assert_match(%r{-rmallard/trim}, report.dig("env", "RUBYOPT"))
    assert report.dig("allocator", "malloc_trim"), "doctor should see mallard/trim's extension in the maps"
  end

  def test_a_process_that_required_mallard_trim_shows_it_and_one_that_did_not_does_not
    skip "glibc-trim is unavailable here: #{GLIBC_TRIM.unavailable_reason}" unless GLIBC_TRIM.available?

    trimmed = spawn_ruby("$LOAD_PATH.unshift(#{File.join(Processes::ROOT, 'lib').inspect}); require 'mallard/trim'")
    plain = spawn_ruby("")
    trimmed_out, = mallard("doctor", trimmed)
    plain_out, = mallard("doctor", plain)

    assert_match(%r{\+ malloc_trim\(0\) after each major GC \(mallard/trim\)}, trimmed_out)
    refute_match(/malloc_trim\(0\)/, plain_out)
  end
end

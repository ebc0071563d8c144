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
  end
end

# frozen_string_literal: true

require "test_helper"
require_relative "../support/rubies"

# A process's YJIT settings as its own Ruby takes them, asked of real Rubies (Debian's 3.1, and the 3.3 built here).
class YjitCheckTest < Minitest::Test
  Check = Mallard::Probe::YjitCheck

  def statuses(checks) = checks.map { |check| [check.status, check.read] }

  def test_settings_come_from_the_environment_rubyopt_and_the_rubys_own_options
    environ = { "RUBY_YJIT_ENABLE" => "1", "RUBYOPT" => "-W0 --yjit-exec-mem-size=32" }

    assert_equal [%w[RUBY_YJIT_ENABLE 1], %w[--yjit-exec-mem-size 32], ["--yjit", nil]],
                 Check.settings(environ, ["ruby", "--yjit", "app.rb", "--yjit-stats"])
    assert_empty Check.settings({ "RUBYOPT" => "-W0" }, %w[puma])
  end

  def test_ruby_3_1_turns_yjit_on_for_any_value_of_ruby_yjit_enable
    checks = Check.call(ruby: RbConfig.ruby, settings: [%w[RUBY_YJIT_ENABLE 0], %w[--yjit-exec-mem-size 32]])

    assert_equal [%w[read on], %w[read on]], statuses(checks)
  end

  def test_ruby_3_3_reads_0_as_off_and_refuses_an_option_it_does_not_have
    checks = Check.call(ruby: Rubies.path(Rubies::STOCK), settings: [%w[RUBY_YJIT_ENABLE 0], %w[--yjit-mem-size 16]])

    assert_equal [%w[read off], ["invalid", nil]], statuses(checks)
    assert_match(/invalid YJIT option `mem-size=16'/, checks.last.reason)
  end
end

# frozen_string_literal: true

require "test_helper"

# What a value of --yjit means, and the environment it gives the app: a size joins the RUBYOPT mallard built.
class YjitModeTest < Minitest::Test
  YjitMode = Mallard::YjitMode

  def test_on_off_and_sizes_are_modes_and_nothing_else_is
    %w[on off 1 16 4095].each { |mode| assert YjitMode.valid?(mode), mode }
    [nil, "", "0", "016", "4096", "-1", "16m", "1.5", "yes"].each { |mode| refute YjitMode.valid?(mode), mode.inspect }
  end

  def test_a_size_is_yjit_on_with_that_code_region
    assert_equal [16, true, "--yjit-exec-mem-size=16", "yjit-16"], read("16", %i[size_mib on? option label])
    assert_equal [nil, true, nil], read("on", %i[size_mib on? option])
    assert_equal [nil, false, nil], read("off", %i[size_mib on? option])
  end

  def test_a_size_joins_the_rubyopt_the_agent_loads_through
    agent = "-I/lib -rmallard/agent"

    assert_equal({ "RUBY_YJIT_ENABLE" => "1", "RUBYOPT" => "#{agent} --yjit-exec-mem-size=32" },
                 YjitMode.env("32", agent))
    assert_equal({ "RUBY_YJIT_ENABLE" => "1", "RUBYOPT" => "--yjit-exec-mem-size=32" }, YjitMode.env("32", nil))
  end

  def test_on_and_off_leave_rubyopt_as_it_was
    assert_equal({ "RUBY_YJIT_ENABLE" => "1", "RUBYOPT" => "-w" }, YjitMode.env("on", "-w"))
    assert_equal({ "RUBY_YJIT_ENABLE" => nil, "RUBYOPT" => nil }, YjitMode.env("off", nil))
  end

  private

  def read(mode, names) = names.map { |name| YjitMode.public_send(name, mode) }
end

# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/rubies"

# compare --yjit off,on,16 on Ruby 3.3: each YJIT row verified in the process (a size by the code region YJIT reserved
# in its maps), YJIT's code and metadata memory per row from its run with the agent, and the decision among them.
class Ruby33CompareYjitTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)
  MIB = 1024

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-ruby33-yjit")
    Rubies.extensions(Rubies::STOCK) # built once, outside the run's time limit
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_yjit_sizes_as_rows_with_their_memory_and_a_decision
    summary = compare("--yjit", "off,on,16")
    rows = summary["rows"].to_h { |row| [row["name"], row] }
    configs = summary["configs"].to_h { |config| [config["name"], config] }

    assert_equal %w[glibc/yjit-16 glibc/yjit-off glibc/yjit-on], rows.keys.sort
    rows.each_value { |row| assert row["verified"], row.inspect }
    assert_equal([16 * MIB, 48 * MIB], %w[16 on].map { |mode| region_kb(rows["glibc/yjit-#{mode}"]) })
    assert_yjit_memory(configs)
    assert_decision(summary["yjit_choices"], rows.values.map { |row| row["runs"].size }.min)
  end

  def test_a_size_the_ruby_cannot_take_is_refused_before_anything_starts
    [["off,0", "--yjit takes"], ["off,16,16", "each once"], ["4096", "--yjit takes"]].each do |modes, message|
      _, err, status = mallard("compare", "--ruby", Rubies.path(Rubies::STOCK), "--yjit", modes, "--out",
                               File.join(@tmp, "refused"), File.join(APPS, "hello"))

      assert_equal 64, status.exitstatus, err
      assert_includes err, message
      refute File.exist?(File.join(@tmp, "refused")), "nothing was started"
    end
  end

  private

  # Code and metadata, read inside the app, for each YJIT row; none under off.
  def assert_yjit_memory(configs)
    %w[on 16].each do |mode|
      config = configs["glibc/yjit-#{mode}"]

      assert_operator config["yjit_code_kb"], :>, 0, config.inspect
      assert_operator config["yjit_metadata_kb"], :>, 0, config.inspect
    end
    assert_nil configs["glibc/yjit-off"]["yjit_code_kb"]
  end

  # One group, the YJIT rows measured smallest region first, and a size chosen or why none was: with two runs of each
  # row every change has an interval, unless a run was not counted (a busy machine) and not made up by its retry.
  def assert_decision(choices, fewest_runs)
    assert_equal 1, choices.size, choices.inspect
    choice = choices.first

    assert_equal %w[glibc glibc/yjit-off], choice.values_at("group", "off")
    assert_equal([["16", 16], ["on", 48]], choice["options"].map { |option| option.values_at("mode", "size_mib") })
    assert(choice["choice"] || choice["ending"], choice.inspect)
    return assert_equal(1, fewest_runs, choice.inspect) if choice["ending"] == "no_interval"

    assert_includes [nil, "no_gain"], choice["ending"]
    choice["options"].each { |option| refute_nil option.dig("vs_off", "ci"), option.inspect }
  end

  def region_kb(row) = row["instrumented_runs"].first["yjit_region_kb"]

  # @return [Hash] the summary
  def compare(*args)
    out, err, status = Timeout.timeout(400) do
      Open3.capture3(Gem.ruby, EXE, "compare", "--json", "--out", File.join(@tmp, "run"), "--ruby",
                     Rubies.path(Rubies::STOCK), "--allocators", "glibc", *args, "--repeat", "2", "--duration", "3",
                     "--concurrency", "2", File.join(APPS, "hello"))
    end
    assert_includes [0, 1], status.exitstatus, err
    JSON.parse(out)
  end
end

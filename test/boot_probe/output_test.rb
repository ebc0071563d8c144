# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require "mallard/boot_probe/output"

# The probe writes JSON without the json library: every line must still be JSON, whatever the names hold.
class BootProbeOutputTest < Minitest::Test
  FRAME = [7, 3, 0, 100, 4096, 1024, 800, nil, 20, 150, 8192, 2048, 1600, nil, 30].freeze

  def setup
    @dir = Dir.mktmpdir("mallard-boot-output")
    @path = File.join(@dir, "samples.jsonl")
  end

  def teardown
    FileUtils.remove_entry(@dir)
  end

  def test_a_loaded_require_is_one_json_line_with_both_readings
    output(1).loaded(FRAME, "rails/all", "/gems/railties/lib/rails/all.rb", 4)
    line = lines.first

    assert_equal({ "type" => "require", "repeat" => 1, "id" => 7, "parent" => 3, "name" => "rails/all",
                   "loaded" => true, "file" => "/gems/railties/lib/rails/all.rb", "hook_objects" => 4,
                   "start" => [100, 4096, 1024, 800, nil, 20], "end" => [150, 8192, 2048, 1600, nil, 30] }, line)
  end

  def test_names_with_quotes_control_characters_and_bytes_that_are_not_utf8_stay_json
    hostile = "a\"b\\c\nd\e[31m\xFF".b
    output("objects").not_loaded(FRAME, hostile, "LoadError")
    output(2).write("start", "app" => hostile, "list" => [1, 2.5, nil, true], "nested" => { "k" => "v" })

    first, second = lines
    assert_equal "a\"b\\c\nd\e[31m\uFFFD", first["name"]
    assert_equal "objects", first["repeat"]
    assert_equal "LoadError", first["error"]
    assert_equal [1, 2.5, nil, true], second["list"]
    assert_equal({ "k" => "v" }, second["nested"])
  end

  private

  def output(repeat)
    Mallard::BootProbe::Output.new(@path, repeat: repeat)
  end

  def lines
    File.readlines(@path).map { |line| JSON.parse(line) }
  end
end

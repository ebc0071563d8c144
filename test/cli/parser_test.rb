# frozen_string_literal: true

require "test_helper"

# OptionParser raises on an argument that is not valid UTF-8; mallard's parser takes it and gives it back
# with the same bytes and the same encoding.
class ParserTest < Minitest::Test
  def setup
    @settings = {}
    @parser = Mallard::CLI::Parser.new do |opts|
      opts.on("--out DIR") { |dir| @settings[:out] = dir }
      opts.on("--list LIST", Array) { |list| @settings[:list] = list }
      opts.on("--json") { @settings[:json] = true }
    end
  end

  def test_an_operand_that_is_not_utf8_comes_back_as_the_very_argument
    app = +"app\nname \xff"
    operands = @parser.parse(["--json", app, "other"])

    assert_same app, operands.first
    assert_equal "other", operands.last
    assert @settings[:json]
  end

  def test_option_values_that_are_not_utf8_keep_their_bytes_and_their_encoding
    @parser.parse(["--out", "run \xfe", "--list=a,b\xfd"])

    assert_equal ["run \xfe", Encoding::UTF_8], [@settings[:out], @settings[:out].encoding]
    assert_equal ["a", "b\xfd"], @settings[:list]
    assert_equal [Encoding::UTF_8], @settings[:list].map(&:encoding).uniq
  end

  def test_valid_arguments_are_parsed_as_by_option_parser
    operands = @parser.parse(["--out", "café", "app"])

    assert_equal "café", @settings[:out]
    assert_equal ["app"], operands
    assert_raises(OptionParser::InvalidOption) { @parser.parse(["--nope\xff"]) }
  end
end

# frozen_string_literal: true

require "test_helper"
require "json"

# The two rules for text from outside mallard: scrub (valid UTF-8, bad bytes visible) and printable
# (one terminal line, no control characters).
class TextTest < Minitest::Test
  Text = Mallard::Text

  def test_a_bad_byte_becomes_a_visible_escape_and_the_result_is_valid_utf8
    [+"x \xff", "x \xff".b, (+"x \xff").force_encoding(Encoding::US_ASCII)].each do |input|
      scrubbed = Text.scrub(input)

      assert_equal "x \\xFF", scrubbed
      assert_equal Encoding::UTF_8, scrubbed.encoding
      assert scrubbed.valid_encoding?
    end
  end

  def test_each_byte_of_a_cut_sequence_is_escaped_and_valid_characters_are_kept
    assert_equal "€ \\xE2\\x82 é", Text.scrub("€ \xE2\x82 é".b)
    assert_equal "plain", Text.scrub("plain")
    assert_nil Text.scrub(nil)
  end

  def test_scrub_returns_a_new_unfrozen_string
    input = "frozen"
    output = Text.scrub(input)

    refute_same input, output
    refute_predicate output, :frozen?
  end

  def test_what_is_scrubbed_can_be_written_as_json_and_read_back
    data = { "tail" => ["x \xff", "\e[31mred\0"].map { |line| Text.scrub(line) } }

    assert_equal data, JSON.parse(JSON.generate(data))
  end

  def test_json_read_back_with_a_bad_byte_parses_to_what_scrub_gives
    source = %({"path": "/app/x \xff y", "n": 1}\n).b

    assert_equal({ "path" => Text.scrub("/app/x \xff y"), "n" => 1 }, JSON.parse(Text.scrub_json(source)))
  end

  def test_scrub_all_reaches_strings_in_nested_hashes_and_arrays
    scrubbed = Text.scrub_all({ "argv" => ["soak", "a\xffb"], "paths" => ["/\xfe"], "n" => 3, nil => [nil] })

    assert_equal({ "argv" => ["soak", "a\\xFFb"], "paths" => ["/\\xFE"], "n" => 3, nil => [nil] }, scrubbed)
  end

  def test_printable_drops_colour_and_title_sequences_and_escapes_other_controls
    assert_equal "red plain", Text.printable("\e[1;31mred\e[0m plain")
    assert_equal "after", Text.printable("\e]0;a window title\aafter")
    assert_equal "link", Text.printable("\e]8;;http://example.com\e\\link\e]8;;\e\\")
    assert_equal "a\\x00b\\x07c\\x1Bd\\x7Fe\\u009B", Text.printable("a\0b\ac\ed\x7Fe\u009B")
  end

  def test_printable_keeps_tabs_and_puts_a_newline_on_the_same_line
    assert_equal "a\tb", Text.printable("a\tb")
    assert_equal "/tmp/new\\x0Aline \\xFF", Text.printable("/tmp/new\nline \xff")
  end

  def test_printable_text_has_no_control_character_but_tab_whatever_the_input
    all_bytes = ((0..255).map(&:chr).join.b + "\u0085\u009B\e[".b) * 2

    refute_match(/[\x00-\x08\x0A-\x1F\x7F\u0080-\u009F]/, Text.printable(all_bytes))
    assert Text.printable(all_bytes).valid_encoding?
  end

  def test_printable_lines_splits_on_newlines_and_cleans_each_line
    assert_equal ["one \\xFF", "two", "", "three\\x0D"], Text.printable_lines("one \xff\r\ntwo\n\nthree\r")
    assert_equal [], Text.printable_lines(nil)
  end
end

# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# A JSON-lines file written live, as a crash or a damaged disk leaves it.
class JsonLinesTest < Minitest::Test
  JsonLines = Mallard::Run::JsonLines

  def setup
    @tmp = Dir.mktmpdir("mallard-json-lines-test")
    @path = File.join(@tmp, "samples.jsonl")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_a_truncated_last_line_is_skipped_and_counted
    File.write(@path, %({"kind":"total","t":0.5}\n{"kind":"total","t":1.0}\n{"kind":"tot))
    result = JsonLines.read(@path)

    assert_equal([0.5, 1.0], result.records.map { |record| record["t"] })
    assert_equal 1, result.skipped
  end

  def test_garbage_and_non_object_lines_are_skipped_and_counted
    File.write(@path, %({"t":1}\nnot json at all\n[1, 2]\n42\n{"t":2}\n))
    result = JsonLines.read(@path)

    assert_equal([1, 2], result.records.map { |record| record["t"] })
    assert_equal 3, result.skipped
  end

  # A crash on a filesystem with delayed allocation can leave the tail of a file as NUL bytes.
  def test_a_tail_of_nul_bytes_is_one_skipped_line
    File.binwrite(@path, "{\"t\":1}\n#{"\0" * 64}".b)
    result = JsonLines.read(@path)

    assert_equal 1, result.records.size
    assert_equal 1, result.skipped
  end

  def test_invalid_utf8_does_not_raise
    File.binwrite(@path, "{\"t\":1,\"note\":\"caf\xC3\"}\n\xFF\xFE\xFD\n{\"t\":2}\n".b)
    result = JsonLines.read(@path)

    assert_equal([1, 2], result.records.map { |record| record["t"] })
    assert_equal 1, result.skipped
    assert result.records.first["note"].valid_encoding?
  end

  def test_a_missing_file_is_empty
    result = JsonLines.read(File.join(@tmp, "agent.jsonl"))

    assert_empty result.records
    assert_equal 0, result.skipped
  end

  def test_parse_takes_one_line
    assert_equal({ "t" => 1 }, JsonLines.parse(%({"t":1}\n)))
    assert_nil JsonLines.parse("   \n")
    assert_nil JsonLines.parse(%({"t":))
    assert_nil JsonLines.parse("\xFF".b)
  end
end

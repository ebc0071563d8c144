# frozen_string_literal: true

require "test_helper"
require "json"
require "mallard/agent/json_text"

# The agent's own JSON writer, read back by the json library.
class JsonTextTest < Minitest::Test
  JsonText = Mallard::Agent::JsonText

  def test_what_the_agent_writes_reads_back_as_written
    value = { "kind" => "ledger", t: 1.5, "n" => 42, "none" => nil, "yes" => true, "nan" => Float::NAN,
              "note" => "quote \" backslash \\ newline \n tab \t bell \a é", "malloc" => { arena: 1, "x" => -2.25 },
              "empty" => {} }
    read = JSON.parse(JsonText.object(+"", value))

    assert_equal({ "kind" => "ledger", "t" => 1.5, "n" => 42, "none" => nil, "yes" => true, "nan" => nil,
                   "note" => "quote \" backslash \\ newline \n tab \t bell \a é",
                   "malloc" => { "arena" => 1, "x" => -2.25 }, "empty" => {} }, read)
  end

  def test_bytes_that_are_not_utf8_are_replaced_not_raised_on
    assert_equal({ "path" => "a\uFFFDb" },
                 JSON.parse(JsonText.object(+"", { "path" => "a\xFFb".b.force_encoding("UTF-8") })))
  end
end

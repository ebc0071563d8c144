# frozen_string_literal: true

require "test_helper"
require "mallard/agent/ledger"

# The in-app ledger reads the mappings (stacks, PSS) only when asked: reading smaps from inside the app costs it
# far more than the read's own CPU (Agent::Ledger says what was measured).
class AgentLedgerTest < Minitest::Test
  def test_the_mappings_are_not_read_unless_asked_for
    fields = Mallard::Agent::Ledger.from_env({}, origin: 0.0).fields

    refute fields.key?("stacks_kb"), fields.inspect
    refute fields.key?("pss_kb"), fields.inspect
    assert_operator fields["rss_kb"], :>, 0
  end

  def test_asked_for_they_are_read_at_the_first_reading_and_the_stacks_carried_until_the_next
    ledger = Mallard::Agent::Ledger.from_env({ "MALLARD_MAPPINGS_INTERVAL" => "30" }, origin: 0.0)
    first = ledger.fields(100.0)
    between = ledger.fields(110.0)

    assert_operator first["stacks_kb"], :>, 0
    assert_operator first["pss_kb"], :>, 0
    assert_equal first["stacks_kb"], between["stacks_kb"]
    refute between.key?("pss_kb"), "a PSS is true only of the reading it was taken with"
  end

  def test_a_setting_that_is_not_a_positive_number_reads_none
    %w[off 0 -5 soon].each do |value|
      assert_nil Mallard::Agent::Ledger.mappings_interval("MALLARD_MAPPINGS_INTERVAL" => value), value
    end
    assert_in_delta 30.0, Mallard::Agent::Ledger.mappings_interval("MALLARD_MAPPINGS_INTERVAL" => "30")
  end
end

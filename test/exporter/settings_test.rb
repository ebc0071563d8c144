# frozen_string_literal: true

require "test_helper"
require "mallard/exporter/settings"

class ExporterSettingsTest < Minitest::Test
  Settings = Mallard::Exporter::Settings

  def test_loopback_port_9394_unless_told
    settings = Settings.from_env({})

    assert_equal ["127.0.0.1", 9394, 5.0], [settings.host, settings.port, settings.interval]
    assert_predicate settings, :loopback?
    assert_equal "http://127.0.0.1:9394/metrics", settings.url
  end

  def test_host_and_port_a_port_alone_or_off
    assert_equal ["0.0.0.0", 9400], Settings.from_env("MALLARD_METRICS" => "0.0.0.0:9400").to_a.first(2)
    refute_predicate Settings.from_env("MALLARD_METRICS" => "0.0.0.0:9400"), :loopback?
    assert_equal ["127.0.0.1", 9500], Settings.from_env("MALLARD_METRICS" => "9500").to_a.first(2)
    assert_equal ["::1", 9394], Settings.from_env("MALLARD_METRICS" => "[::1]:9394").to_a.first(2)
    assert_equal "http://[::1]:9394/metrics", Settings.from_env("MALLARD_METRICS" => "[::1]:9394").url
    assert_nil Settings.from_env("MALLARD_METRICS" => "off")
  end

  def test_a_value_without_a_port_is_refused
    error = assert_raises(ArgumentError) { Settings.from_env("MALLARD_METRICS" => "localhost:http") }

    assert_match(/MALLARD_METRICS=localhost:http names no port/, error.message)
  end

  def test_interval
    assert_in_delta 0.5, Settings.from_env("MALLARD_METRICS_INTERVAL" => "0.5").interval
    assert_in_delta 5.0, Settings.from_env("MALLARD_METRICS_INTERVAL" => "-1").interval
  end
end

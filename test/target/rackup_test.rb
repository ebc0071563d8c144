# frozen_string_literal: true

require "test_helper"

# The rackup mallard serves a Rack app with: the app's own config.ru behind the agent, with a line once it has booted,
# or both; without the agent, nothing of mallard's but the line.
class RackupTest < Minitest::Test
  Rackup = Mallard::Target::Rackup
  CONFIG_RU = "/srv/app/config.ru"

  def test_the_agents_rackup_wraps_the_app_in_its_middleware
    source = Rackup.source(CONFIG_RU)

    assert_includes source, "require \"mallard/agent\"\n"
    assert source.end_with?("run Mallard::Agent::Middleware.new(mallard_app)\n")
  end

  # The line runs where Puma loads the app, after config.ru and before anything is served.
  def test_a_line_after_boot_comes_after_the_app_is_loaded_and_before_it_runs
    lines = Rackup.source(CONFIG_RU, agent: false, after_boot: "Process.warmup").lines(chomp: true)

    assert_equal ["mallard_loaded = Rack::Builder.parse_file(\"#{CONFIG_RU}\")",
                  "mallard_app = mallard_loaded.is_a?(Array) ? mallard_loaded.first : mallard_loaded",
                  "Process.warmup", "run mallard_app"], lines.drop(1)
    refute_match(/Mallard|require/, lines.join("\n"), "no code of mallard's where the agent is off")
  end

  def test_with_the_agent_the_line_still_runs_before_the_app_serves
    lines = Rackup.source(CONFIG_RU, after_boot: "GC.compact").lines(chomp: true)

    assert_equal ["GC.compact", "run Mallard::Agent::Middleware.new(mallard_app)"], lines.last(2)
  end
end

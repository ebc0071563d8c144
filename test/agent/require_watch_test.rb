# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "mallard/agent/require_watch"

# A hook waits for what a later require defines, runs once it is there, and is not called again.
class RequireWatchTest < Minitest::Test
  def test_a_hook_runs_after_the_require_that_makes_it_possible_and_then_never_again
    calls = []
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "mallard_watch_probe.rb"), "module MallardWatchProbe; end\n")
      $LOAD_PATH.unshift(dir)
      Mallard::Agent::RequireWatch.add do
        calls << defined?(::MallardWatchProbe)
        !calls.last.nil?
      end

      assert_equal [nil], calls, "checked at once, not there yet"
      require "mallard_watch_probe"
      require "set"

      assert_equal [nil, "constant"], calls
    ensure
      $LOAD_PATH.delete(dir)
    end
  end
end

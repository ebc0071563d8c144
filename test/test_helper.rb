# frozen_string_literal: true

$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "mallard"
require "minitest/autorun"
require "open3"
require "stringio"
require "timeout"
require_relative "support/processes"
require_relative "support/diagnoses"
require_relative "support/run_directories"
require_relative "support/cli_runs"
require_relative "support/redis_servers"
require_relative "support/comparison_rows"
require_relative "support/slowest_files"

# In CI every tool is installed by `bin/setup --test`, so a test that skips for a missing one hides a broken
# install: there a skip fails.
if ENV["CI"] == "true"
  module SkipFailsInCI
    def skip(message = nil, *)
      flunk("skipped in CI, where every tool should be installed: #{message}")
    end
  end
  Minitest::Test.prepend(SkipFailsInCI)
end

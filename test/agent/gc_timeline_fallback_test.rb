# frozen_string_literal: true

require "minitest/autorun"
require "fileutils"
require "json"
require "open3"
require "rbconfig"
require "tmpdir"

# The agent where mallard/gc_events_ext was not built: a copy of the agent's files without it, and with the
# reason ext/mallard_gc/extconf.rb would have recorded.
class GcTimelineFallbackTest < Minitest::Test
  LIB = File.expand_path("../../lib", __dir__)

  def test_without_the_extension_the_agent_says_so_once_and_writes_interval_records_only
    Dir.mktmpdir do |dir|
      lib = copy_agent(dir)
      File.write(File.join(lib, "mallard/gc_events_ext.unavailable"), "this Ruby has no GC enter/exit events\n")
      out = File.join(dir, "agent.jsonl")
      env = { "MALLARD_AGENT_OUT" => out, "MALLARD_AGENT_INTERVAL" => "0.05", "MALLARD_GC_EVENTS" => "hooks",
              "RUBYOPT" => nil, "RUBYLIB" => nil, "BUNDLE_GEMFILE" => nil }
      _, err, status = Open3.capture3(env, RbConfig.ruby, "-I#{lib}", "-rmallard/agent", "-e",
                                      "5.times { GC.start; sleep 0.05 }")

      assert_predicate status, :success?, err
      assert_equal ["mallard agent: per-GC timing is unavailable (this Ruby has no GC enter/exit events); " \
                    "the interval records still carry GC counts"], err.lines.map(&:chomp)
      kinds = File.readlines(out).map { |line| JSON.parse(line)["kind"] }.uniq
      assert_equal %w[ruby agent ledger], kinds
    end
  end

  private

  def copy_agent(dir)
    lib = File.join(dir, "lib")
    FileUtils.mkdir_p(File.join(lib, "mallard"))
    FileUtils.cp_r(File.join(LIB, "mallard/agent"), File.join(lib, "mallard"))
    %w[agent.rb extension_loader.rb extension_abi.rb version.rb].each do |file|
      FileUtils.cp(File.join(LIB, "mallard", file), File.join(lib, "mallard"))
    end
    lib
  end
end

# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/worded"

# The memory ledger on real processes: the agent reads RSS's parts inside real Puma apps under each allocator
# (preloaded through the catalog), and the verdict judges what the app holds apart from what the allocator holds.
# Runs that other tests start anyway carry four of the ledger's claims, read there: a generated Rails app soaked
# for a minute (VerdictIntegrationTest, its warming app's soak), an app retaining per request and a bounded app's
# five threads under glibc (GcIntegrationTest, its runs of them), and the fragmenting app's arenas under glibc and
# MALLOC_ARENA_MAX=2 (FidelityIntegrationTest, its comparison's runs with the agent).
class LedgerIntegrationTest < Minitest::Test
  include Processes
  include Worded

  APPS = File.expand_path("../fixtures/apps", __dir__)
  SCRIPTS = File.expand_path("../fixtures/scripts", __dir__)
  # Coarser than the agent's 0.5 s records, fine enough for a short run to have readings to judge. The mappings
  # (stacks, PSS) come from the sampler, as in any run.
  LEDGER_ENV = { "MALLARD_LEDGER_INTERVAL" => "1" }.freeze
  # A script of a few seconds needs readings twice as often to have enough to judge.
  SCRIPT_LEDGER_ENV = { "MALLARD_LEDGER_INTERVAL" => "0.5" }.freeze

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-ledger-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  # Each allocator: the parts and the unexplained rest add up to each process's RSS, that RSS is the sampler's
  # (read from outside at about the same moment), and what an allocator cannot report is named.
  %w[glibc jemalloc tcmalloc mimalloc].each do |name|
    define_method(:"test_parts_add_up_to_rss_under_#{name}") do
      allocator = Mallard::Allocators::Catalog.default.fetch(name)
      skip allocator.unavailable_reason unless allocator.available?

      summary = soak("stable", "--duration", "5", "--threads", "2", "--allocator", name, out: name)
      ledger = summary.fetch("ledger")

      assert_equal name, ledger["allocator"]
      assert_parts_add_up(ledger)
      assert_in_delta summary.dig("memory", "final_rss_kb"), ledger["processes"].sum { |p| p["rss_kb"] },
                      0.05 * summary.dig("memory", "final_rss_kb")
      parts = ledger["parts"].to_h { |part| [part["name"], part["kb"]] }
      assert_operator parts["ruby live objects"], :>, 1000
      assert_operator parts["file-backed"], :>, 1000
      if name == "mimalloc"
        assert_match(/mimalloc/, ledger["not_read"])
      else
        assert_operator parts["malloc in use"], :>, 0
        refute_nil parts["malloc held free"], ledger.inspect
        assert_operator ledger["explained_pct"], :>, 50
      end
    end
  end

  # A batch job's unneeded cache (the case that halved a job's RSS and run time): what the app holds grows with it
  # and stays flat without it. A busy script keeps the agent's thread from the GVL for seconds at a time, so the
  # scripts run long enough for a dozen readings or more (8M results: about 13 s and 1.3 GiB), and the flat one
  # long enough (80M: about 25 s) that its malloc's ±150 KB swings between GCs cannot pass for a trend.
  def test_a_batch_script_holds_growing_memory_with_its_cache_and_flat_memory_without
    growing = script("growing_cache.rb", 8_000_000)
    flat = script("no_cache.rb", 80_000_000)

    assert_equal "growing", growing.dig("verdict", "app_held"), growing["ledger"].inspect
    assert_match(/it retains memory/, soak_words(growing).ledger)
    assert_equal "plateaued", flat.dig("verdict", "app_held"), flat["ledger"].inspect
  end

  # Forked Puma workers share the master's pages copy-on-write, and the libraries' code: each process's parts in
  # PSS add up to its PSS, the processes' PSS sums to what the sampler reads from outside at the end (smaps_rollup),
  # and the shared file-backed pages count less in PSS than in RSS. The stacks are a part of their own. The mappings
  # are the sampler's, read from outside every few seconds and joined to the ledger's readings.
  def test_puma_workers_ledger_splits_shared_pages_in_pss
    summary = soak("stable", "--duration", "5", "--workers", "2", "--threads", "3", out: "workers")
    ledger = summary.fetch("ledger")
    processes = ledger["processes"]

    assert_operator processes.size, :>=, 2, ledger.inspect
    assert_parts_add_up(ledger)
    assert_pss_parts_add_up(processes)
    file = ledger["parts"].find { |part| part["name"] == "file-backed" }
    assert_operator file["pss_kb"], :<, 0.8 * file["kb"], "shared code counts once over the processes"
    assert_in_delta outside_pss_kb("workers"), ledger["pss_kb"], 0.1 * ledger["pss_kb"]
    assert_match(/the \d processes took [\d.]+ MiB together at [\d.]+ s \(PSS/, terminal("workers"))
  end

  private

  def soak(app, *args, out:)
    stdout, err, status = mallard("soak", File.join(APPS, app), "--json", "--out", File.join(@tmp, out), *args,
                                  env: LEDGER_ENV)
    assert_includes [0, 69], status.exitstatus, err
    JSON.parse(stdout)
  end

  def script(name, count)
    stdout, err, status = mallard("soak", "--script", File.join(SCRIPTS, name), "--interval", "0.1", "--json",
                                  "--out", File.join(@tmp, name), "--", count, env: SCRIPT_LEDGER_ENV)
    assert_equal 0, status.exitstatus, err
    JSON.parse(stdout)
  end

  # The sampler's last PSS of the whole tree during the load, read from outside (smaps_rollup of each process).
  def outside_pss_kb(out)
    totals = File.foreach(File.join(@tmp, out, "samples.jsonl")).map { |line| JSON.parse(line) }
                 .select { |sample| sample["kind"] == "total" && sample["pss_kb"] }
    totals.max_by { |sample| sample["requests"].to_i }.fetch("pss_kb")
  end

  def terminal(out)
    text, err, status = mallard("report", File.join(@tmp, out))
    assert_equal 0, status.exitstatus, err
    text
  end

  def assert_pss_parts_add_up(processes)
    processes.each do |process|
      assert_equal process["pss_kb"], process["pss_parts"].values.compact.sum, process.inspect
      assert_operator process["pss_kb"], :<, process["rss_kb"], "a worker shares pages"
      assert_operator process["parts"]["stacks"], :>, 0, "every process has a stack"
    end
  end

  def assert_parts_add_up(ledger)
    ledger["processes"].each do |process|
      assert_equal process["rss_kb"], process["parts"].values.compact.sum, process.inspect
      assert process["parts"].key?("unexplained")
    end
  end
end

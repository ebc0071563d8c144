# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/installed_gem"
require_relative "../support/heap_dumps"

# The gem as a user installs it (`gem build`, `gem install` with its extensions compiled), run from outside this
# checkout: no -I to it, no Bundler, the working directory elsewhere. Every command that needs a file beyond the
# Ruby sources (wrk's Lua script, the agent, the C extensions) fails here when the gemspec leaves one out.
class InstalledGemTest < Minitest::Test
  include Processes
  include HeapDumps

  APPS = File.expand_path("../fixtures/apps", __dir__)
  BOOT_APP = File.expand_path("../fixtures/boot/app", __dir__)
  RUN_TIMEOUT = 60
  EXTENSIONS = %w[trim_ext gc_events_ext malloc_stats_ext heap_scan_ext].freeze

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-installed")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_the_package_holds_every_file_of_the_checkout_that_mallard_runs_with_and_its_license
    prefix = "#{InstalledGem.gem_dir}/"
    contents = gem_output("contents", "mallard").lines.map { |line| line.strip.delete_prefix(prefix) }
    tracked = Open3.capture2("git", "ls-files", "lib", "exe", chdir: InstalledGem::ROOT).first.lines.map(&:strip)

    assert_empty %w[lib/mallard/probe/wrk.lua LICENSE] - contents, "missing from the installed gem"
    assert_empty tracked - contents, "files of lib/ and exe/ missing from the gem"
    built = EXTENSIONS.map { |name| "lib/mallard/#{name}.#{RbConfig::CONFIG['DLEXT']}" }
    assert_empty built - contents, "extensions not compiled into the installed gem"
  end

  # doctor starts a Ruby under glibc-trim, which loads the gem's compiled extension, and verifies it took effect.
  def test_the_installed_executable_loads_the_installed_copy_and_its_compiled_extension
    code = 'require "mallard"; print $LOADED_FEATURES.grep(/mallard\\.rb\\z/)'
    loaded, = Open3.capture2(InstalledGem.env, Gem.ruby, "-e", code, chdir: @tmp)
    assert_includes loaded, "#{InstalledGem.gem_dir}/lib/mallard.rb"
    refute_includes loaded, "#{InstalledGem::ROOT}/lib"

    doctor = run_json("doctor", "--allocator", "glibc-trim", "--json", "--", Gem.ruby, "-e", "sleep")
    assert_equal({ "name" => "glibc-trim", "verified" => true, "problems" => [] }, doctor["expected"])
  end

  # wrk drives the load through the gem's Lua script, and glibc-trim loads the gem's compiled extension into the app.
  def test_a_soak_and_a_one_repeat_comparison_of_a_rack_app_measure_with_wrk
    soak = run_json("soak", File.join(APPS, "hello"), "--duration", "1", "--cpus", "1", "--json",
                    "--out", File.join(@tmp, "soak"))
    assert_equal "complete", soak["status"]
    assert_equal "wrk", soak.dig("load", "tool")
    assert_operator soak.dig("load", "requests"), :>, 0

    compare = run_json("compare", File.join(APPS, "hello"), "--allocators", "glibc,glibc-trim", "--repeat", "1",
                       "--duration", "1", "--json", "--out", File.join(@tmp, "compare"), exits: [0, 65])
    assert_compared compare, File.join(@tmp, "compare")
  end

  def test_boot_and_heap_diff
    boot = run_json("boot", BOOT_APP, "--repeat", "1", "--json", "--out", File.join(@tmp, "boot"))
    assert_equal "complete", boot["status"]
    assert_operator boot.dig("total", "rss_kb"), :>, 0

    diff = run_json("heap", "diff", *make_dumps(File.join(@tmp, "dumps"), traced: true), "--json")
    assert diff["sites"].first["site"].end_with?("/made.rb:3"), diff["sites"].first.inspect
    assert_in_delta 2000, diff["sites"].first["count"], 2
  end

  private

  # On a machine busy with other work (a shared runner) a run of a short comparison can be invalid (and when all
  # are, mallard exits 65): each run must still have measured with wrk under its configuration, invalid for that
  # alone, and each configuration have one valid run or a retried invalid one.
  def assert_compared(summary, dir)
    assert_equal(%w[glibc glibc-trim], summary["configs"].map { |config| config["name"] })
    runs = Dir.glob(File.join(dir, "*", "summary.json")).map { |path| JSON.parse(File.read(path)) }
    runs.each { |run| assert_measured_with_wrk(run) }
    summary["configs"].each do |config|
      assert (config["verified"] && config["repeats"] == 1) || config["invalid_runs"] == 2, config.inspect
    end
  end

  def assert_measured_with_wrk(run)
    assert_equal %w[complete wrk], [run["status"], run.dig("load", "tool")]
    assert_operator run.dig("load", "requests"), :>, 0
    assert(run.dig("validity", "problems").all? { |problem| problem.include?("machine was busy") }, run["validity"])
  end

  def run_json(*args, exits: [0])
    out, err, status = Timeout.timeout(RUN_TIMEOUT) do
      Open3.capture3(InstalledGem.env, Gem.ruby, InstalledGem.executable, *args, chdir: @tmp)
    end
    assert_includes exits, status.exitstatus, "mallard #{args.join(' ')}: #{err}"
    JSON.parse(out)
  end

  def gem_output(*args)
    out, status = Open3.capture2(InstalledGem.env, Gem.ruby, "-S", "gem", *args, chdir: @tmp)
    assert status.success?, "gem #{args.join(' ')} failed"
    out
  end
end

# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/rubies"

# soak, gc, heap, boot and a Sidekiq run with --ruby: the app on Ruby 3.3.8 built here (YJIT on), mallard on its
# own Ruby. Each run records the subject's Ruby in meta.json, as asked of it and as the app saw itself.
class Ruby33RunsTest < Minitest::Test
  include Processes
  include RunDirectories
  include RedisServers

  APPS = File.expand_path("../fixtures/apps", __dir__)
  JOBS = File.expand_path("../fixtures/jobs", __dir__)
  BOOT_APP = File.expand_path("../fixtures/boot/app", __dir__)
  YJIT = { "RUBY_YJIT_ENABLE" => "1" }.freeze

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-ruby33-runs")
    @tag = new_tag("ruby33")
    @ruby = Rubies.path(Rubies::STOCK)
    Rubies.extensions(Rubies::STOCK) # built once, outside the runs' time limits
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_a_soak_on_3_3_records_the_subjects_ruby_and_its_per_gc_timeline
    summary, meta = run_json("soak", File.join(APPS, "hello"), "--duration", "3", "--concurrency", "2")

    assert_equal "complete", summary["status"]
    assert_subject_ruby meta
  end

  def test_gc_on_3_3_times_each_gc_with_the_hooks
    summary, meta = run_json("gc", File.join(APPS, "leaky"), "--duration", "4", "--concurrency", "2")

    assert_equal "complete", summary["status"]
    assert_subject_ruby meta
    assert_operator summary.dig("gc", "cpu_share"), :>, 0, summary["gc"].inspect
  end

  def test_heap_on_3_3_finds_the_keeping_line
    summary, meta = run_json("heap", File.join(APPS, "keeper"), "--duration", "6")

    assert_equal "complete", summary["status"]
    assert_match(%r{keeper/config\.ru:\d+}, summary["sites"].first["site"])
    assert_equal "3.3.8", meta.dig("subject_ruby", "version")
  end

  def test_boot_on_3_3_measures_the_apps_own_ruby
    summary, meta = run_json("boot", BOOT_APP, "--repeat", "2")

    assert_equal "complete", summary["status"]
    assert_equal "3.3.8", meta.dig("subject_ruby", "version")
    logs = Dir.glob(File.join(@tmp, "run", "boot-*.log")).map { |log| File.read(log) }.join

    refute_match(/incompatible|not built/, logs)
  end

  # Sidekiq 7 on 3.3 (installed into that Ruby by bin/rubies), its jobs pushed by the workload on mallard's Ruby.
  def test_a_sidekiq_7_worker_on_3_3_counts_its_jobs
    summary, meta = run_json("soak", "--sidekiq", "--workload", File.join(JOBS, "steady.rb"), "--duration", "4",
                             JOBS, "--", "sidekiq", "-r", "./jobs.rb", "-c", "5")

    assert_equal "complete", summary["status"], summary["reason"]
    assert_operator summary.dig("jobs", "processed").to_i, :>, 0, summary["jobs"].inspect
    assert_subject_ruby meta
  end

  def test_a_bad_ruby_is_refused_before_anything_starts
    %w[soak gc heap compare boot].each do |command|
      _, err, status = mallard(command, "--ruby", "/etc/passwd", File.join(APPS, "hello"),
                               "--out", File.join(@tmp, "refused"))

      assert_equal 64, status.exitstatus, "#{command}: #{err}"
      assert_match(%r{--ruby /etc/passwd}, err)
      refute_path_exists File.join(@tmp, "refused")
    end
  end

  private

  # @return [Array(Hash, Hash)] the summary and meta.json
  def run_json(command, *args)
    out_dir = File.join(@tmp, "run")
    out, err, status = Timeout.timeout(120) do
      Open3.capture3(YJIT.merge("MALLARD_TEST_TAG" => @tag), Gem.ruby, EXE, command, "--ruby", @ruby, "--json",
                     "--out", out_dir, *args)
    end
    assert_equal 0, status.exitstatus, err
    assert eventually(5) { processes_tagged(@tag).empty? }, -> { "left: #{command_lines(processes_tagged(@tag))}" }
    [JSON.parse(out), JSON.parse(File.read(File.join(out_dir, "meta.json")))]
  end

  def assert_subject_ruby(meta)
    ruby = meta.fetch("subject_ruby")

    assert_equal ["3.3.8", @ruby, true, true], ruby.values_at("version", "path", "yjit_at_boot", "yjit_at_end")
    assert_equal "hooks", ruby["gc_timeline"], ruby["gc_hooks_unavailable"]
    assert_operator ruby["yjit_code_region_bytes"].to_i, :>, 0
  end
end

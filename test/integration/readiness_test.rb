# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# When `mallard soak` counts its subject as up, through the real executable.
class ReadinessIntegrationTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-readiness-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  # The staggered app's second worker boots 3 s after the first. Had load started when the first answered, the
  # second would have booted as the 3 s of load ended and served next to nothing (every request goes on a new
  # connection to a tree of two workers, Experiments::Soak.new_connections?), where it serves about half.
  def test_load_starts_once_every_worker_has_booted_so_every_worker_serves
    out_dir = File.join(@tmp, "run")
    _out, err, status = mallard("soak", File.join(APPS, "staggered"), "--workers", "2", "--threads", "1",
                                "--duration", "3", "--json", "--out", out_dir)

    assert_equal 0, status.exitstatus, err
    served = requests_by_pid(out_dir)
    workers = File.read(File.join(out_dir, "subject.log")).scan(Mallard::Target::RackApp::WORKER_BOOTED)
                  .map { |_index, pid| Integer(pid) }
    assert_equal 2, workers.size
    even = workers.sum { |pid| served.fetch(pid, 0) } / 2.0
    workers.each { |pid| assert_operator served.fetch(pid, 0), :>, even / 4, "requests per process: #{served}" }
  end

  def test_a_boot_timeout_names_the_url_that_never_answered
    url = "http://127.0.0.1:#{Mallard::Target::FreePort.pick}/health"
    _out, err, status = mallard("soak", "--url", url, "--boot-timeout", "1",
                                "--duration", "2", "--out", File.join(@tmp, "silent"), "--", "sleep", "30")

    assert_equal 69, status.exitstatus
    assert_match(%r{\Amallard: `sleep 30` was not up after 1 s: no answer at http://127\.0\.0\.1:\d+/health\n}, err)
  end

  private

  # Each process's records count its requests so far: the last is its total.
  def requests_by_pid(out_dir)
    File.foreach(File.join(out_dir, "agent.jsonl")).each_with_object({}) do |line, served|
      record = JSON.parse(line)
      next unless record["kind"] == "agent" # the ledger's and the Ruby state's lines are the same processes'

      served[record["pid"]] = [served.fetch(record["pid"], 0), record["requests"]].max
    end
  end
end

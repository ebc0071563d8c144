# frozen_string_literal: true

require "test_helper"
require "json"
require "shellwords"

# `mallard doctor -- CMD` through the real executable: it must read the Ruby process CMD starts,
# whatever CMD goes through first, and read it once it has finished starting.
class DoctorCommandTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)
  SEVEN_THREADS = "6.times { Thread.new { sleep } }; sleep"

  def test_reads_the_ruby_process_behind_runuser_and_says_which
    skip "needs root and runuser" unless Process.uid.zero? && File.executable?("/usr/sbin/runuser")

    report = doctor_json("--", "runuser", "-u", "nobody", "--", Gem.ruby, "-e", SEVEN_THREADS)

    assert_equal "runuser", report.dig("started", "command", 0)
    refute_equal report.dig("started", "pid"), report["pid"]
    assert_equal [Gem.ruby, "-e", SEVEN_THREADS], report["command"]
    assert_equal RUBY_VERSION, report.dig("ruby", "version")
    assert_equal 7, report["threads"]
    assert report.dig("looked", "settled")
  end

  # A launcher that is a Ruby program itself (foreman, a forking `bundle exec`) is looked through.
  def test_looks_through_a_shell_and_a_ruby_launcher_and_names_them
    launcher = "pid = spawn(#{Gem.ruby.dump}, '-e', #{SEVEN_THREADS.dump}); Process.wait(pid)"
    out, err, status = mallard("doctor", "--", "sh", "-c", Shellwords.join([Gem.ruby, "-e", launcher]))

    assert_equal 0, status.exitstatus, err
    read = Integer(out[/\Amallard doctor — PID (\d+): /, 1])
    assert_match(/^  Started     sh -c .* \(PID \d+\) → read PID #{read}, the Ruby process it started$/, out)
    assert_match(/^  Also Ruby   PID \d+ \(.*-e pid = spawn/, out)
    assert_match(/^  Threads     7$/, out)
  end

  def test_in_a_puma_cluster_reads_the_master_and_lists_the_workers
    config_ru = File.join(APPS, "hello", "config.ru")
    report = doctor_json("--", "sh", "-c", "exec puma --workers 2 --bind tcp://127.0.0.1:0 #{config_ru}")

    assert_match(/\Apuma /, report["command"].join(" "))
    assert_equal report.dig("started", "pid"), report["pid"], "sh exec'd Puma: CMD's own process is the master"
    assert_equal 2, report["other_ruby"].size, report["other_ruby"].inspect
    report["other_ruby"].each { |worker| assert_match(/cluster worker/, worker["command"].join(" ")) }
  end

  # Busy for 2.5 s (as an app loading its code is), then it starts its threads: read after a fixed
  # 2 s, it looked like a one-thread process.
  def test_looks_once_the_process_has_settled
    booting = "t = Process.clock_gettime(Process::CLOCK_MONOTONIC); " \
              "nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < 2.5; #{SEVEN_THREADS}"
    report = doctor_json("--", Gem.ruby, "-e", booting)

    assert_equal 7, report["threads"]
    assert report.dig("looked", "settled")
    assert_operator report.dig("looked", "after_s"), :>=, 2.5
  end

  # Idle for 2 s before it listens: idle is not up when a URL says what up is.
  def test_with_a_url_looks_once_it_answers
    port = Mallard::Target::FreePort.pick
    server = "sleep 2; require 'socket'; server = TCPServer.new('127.0.0.1', #{port}); " \
             "loop { client = server.accept; client.readpartial(4096); " \
             "client.write(%(HTTP/1.1 200 OK\\r\\ncontent-length: 0\\r\\n\\r\\n)); client.close }"
    url = "http://127.0.0.1:#{port}/"
    report = doctor_json("--url", url, "--", Gem.ruby, "-e", server)

    assert_equal({ "settled" => true, "url" => url }, report["looked"].slice("settled", "url"))
    assert_operator report.dig("looked", "after_s"), :>=, 2
  end

  def test_a_command_that_never_settles_is_read_when_the_wait_is_over_and_says_so
    out, err, status = mallard("doctor", "--wait", "1.5", "--", "sh", "-c", "while :; do sleep 0.2; done")

    assert_equal 0, status.exitstatus, err
    assert_match(/^  Looked      after 1\.\d s \(--wait\), before it had settled: figures may be mid-boot$/, out)
  end

  private

  def doctor_json(*args)
    out, err, status = mallard("doctor", "--json", *args)
    assert_includes [0, 1], status.exitstatus, err
    JSON.parse(out)
  end
end

# frozen_string_literal: true

require "test_helper"
require "etc"
require "json"
require "tmpdir"

# `mallard heap` where it is needed: a fast leak whose dumps are big and slow to write, an app that runs as its own
# user, and an exit status per way a heap run can end, as `mallard heap --help` promises them.
class HeapCasesTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)
  GUSHER = File.join(APPS, "gusher", "config.ru")
  AS_USER = File.join(APPS, "heap_as_user", "config.ru")
  USER = "www-data"

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-heap-cases")
    File.chmod(0o755, @tmp) # mktmpdir makes it 0700: --user's app could not enter
    @tag = new_tag("heap-cases")
  end

  def teardown
    system("umount", "--lazy", @disk, exception: true) if @disk
    FileUtils.remove_entry(@tmp)
    super
  end

  # Several MB/s retained: dumps of tens of MB that take seconds each. At default options the run waits for them
  # with the app up, and the leaking line is the top significant site.
  def test_a_fast_leak_is_named_at_default_options
    summary, = heap(File.join(APPS, "gusher"))
    top = summary["sites"].first

    assert_equal "#{GUSHER}:#{line_of(GUSHER, 'Array.new(8)')}", top["site"]
    assert_equal "String", top["class"]
    assert top["significant"]
    assert_equal(1, summary["sites"].count { |site| site["significant"] })
    assert_match(/\A1 allocation site keeps .* at #{Regexp.escape(top['site'])}\z/, sentences(summary).conclusion)
    assert_dumps_reported summary
    assert_equal 2, JSON.parse(File.read(File.join(@tmp, "run", "meta.json"))).dig("options", "concurrency"),
                 "a heap run loads with few connections"
    assert_report_shows_the_soak
  end

  # heap/ is the app's (its user's, 0700); nothing else of the run is opened to it; the dumps are 0600.
  def test_an_app_run_as_its_own_user_is_dumped_through_a_heap_directory_it_owns
    root_only
    summary, out_dir = heap(File.join(APPS, "heap_as_user"), "--user", USER, "--duration", "8")
    user = Etc.getpwnam(USER)

    assert_equal "#{AS_USER}:#{line_of(AS_USER, 'KEPT << "')}", summary["sites"].first["site"]
    assert_equal [user.uid, 0o700], owner_mode(File.join(out_dir, "heap"))
    summary["dumps"].each { |dump| assert_equal [user.uid, 0o600], owner_mode(dump["path"]) }
    assert_only_heap_is_theirs(out_dir, user)
    assert_operator summary.dig("latency", "during", "answered"), :>, 0
  end

  def test_exit_64_for_a_run_it_refuses
    _out, err, status = mallard("heap", File.join(APPS, "stable"), "--requests", "100", "--out", run_dir)

    assert_equal 64, status.exitstatus
    assert_match(/give --duration/, err)
    refute File.exist?(run_dir), "refused before anything was made"
  end

  def test_exit_65_when_the_dumps_fail_saying_why_and_no_latency_for_dumps_never_taken
    out, err, status = mallard("heap", File.join(APPS, "undumpable"), "--duration", "4", "--json", "--out", run_dir,
                               env: { "MALLARD_TEST_TAG" => @tag })
    summary = JSON.parse(out)

    assert_equal 65, status.exitstatus, err
    assert_equal %w[failed no_dumps], summary.values_at("status", "cause")
    assert_equal 0, summary.dig("shortfall", "written")
    assert_match(/\AIOError: no space left for this dump/, summary.dig("shortfall", "why"))
    assert_match(/\A0 of the 3 dumps were written \(IOError: no space left for this dump\)/, sentences(summary).reason)
    assert_nil summary.dig("latency", "during"), "no dump was taken"
    assert_includes(help, "65 when there are not three dumps")
  end

  def test_exit_69_when_the_app_does_not_boot
    _out, err, status = mallard("heap", File.join(APPS, "broken"), "--duration", "4", "--out", run_dir)

    assert_equal 69, status.exitstatus, err
  end

  def test_exit_130_when_interrupted_while_dumping
    pid = Process.spawn({ "MALLARD_TEST_TAG" => @tag }, Gem.ruby, Processes::EXE, "heap", File.join(APPS, "gusher"),
                        "--duration", "10", "--out", run_dir, out: File::NULL, err: File.join(@tmp, "err"))
    assert wait_for(timeout: 60) { File.exist?(File.join(run_dir, "heap", "request-1")) }
    Process.kill("INT", pid)
    _, status = Process.wait2(pid)

    assert_equal 130, status.exitstatus, File.read(File.join(@tmp, "err"))
    assert eventually(5) { processes_tagged(@tag).empty? }, -> { "left: #{command_lines(processes_tagged(@tag))}" }
  ensure
    Process.kill("KILL", pid) if pid && !status
  end

  # The run directory on a disk that another writer fills once the run has started: samples.jsonl takes no more
  # lines (its next page), the run stops there, says so in one line and keeps what it wrote before.
  def test_exit_74_when_the_run_directory_takes_no_more_writes
    out_dir = File.join(small_disk, "run")
    pid = spawn_heap(File.join(APPS, "gusher"), "--duration", "20", "--json", "--out", out_dir)
    assert wait_for(timeout: 60) { File.size?(File.join(out_dir, "samples.jsonl")) } # load has begun: before dump A
    filler = keep_full(@disk)
    _, status = Timeout.timeout(120) { Process.wait2(pid) }
    err = output("err")

    assert_equal 74, status.exitstatus, err
    assert_match(%r{\Amallard: cannot write \S+/samples\.jsonl: No space left on device[^\n]*\n\z}, err)
    assert_ended_unsaved JSON.parse(output("out")), out_dir
    assert eventually(5) { processes_tagged(@tag).empty? }, -> { "left: #{command_lines(processes_tagged(@tag))}" }
  ensure
    Process.kill("KILL", pid) if pid && !status
    filler&.kill&.join
  end

  private

  def run_dir = File.join(@tmp, "run")

  # mallard heap in the background, its output in @tmp/out and @tmp/err (#output).
  def spawn_heap(*args)
    Process.spawn({ "MALLARD_TEST_TAG" => @tag }, Gem.ruby, Processes::EXE, "heap", *args,
                  out: File.join(@tmp, "out"), err: File.join(@tmp, "err"))
  end

  def output(name) = File.read(File.join(@tmp, name))

  # A tmpfs of 256 KiB: room for the run's start (meta.json, the app's log, the first samples), not for dumps.
  def small_disk
    root_only("mounts a tmpfs")
    disk = File.join(@tmp, "disk")
    Dir.mkdir(disk)
    skip "cannot mount a tmpfs here" unless system("mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", disk)
    @disk = disk
  end

  # Takes every page the disk frees (a dump cut short and removed, a summary's temporary file) until killed.
  def keep_full(disk)
    Thread.new do
      loop do
        File.open(File.join(disk, "filler"), "a") { |file| loop { file.write("\0" * 65_536) } }
      rescue Errno::ENOSPC
        sleep 0.05
      end
    end
  end

  # Interrupted as the soak was, with the reason in the summary too; what was written before the disk filled is kept,
  # and summary.json, which found no room, is not there half-written.
  def assert_ended_unsaved(summary, out_dir)
    assert_equal %w[interrupted write_failed], summary.values_at("status", "cause")
    assert_match(/samples\.jsonl: No space left on device.*this summary was not saved/, summary["reason"])
    assert_equal "heap", JSON.parse(File.read(File.join(out_dir, "meta.json")))["command"]
    assert_operator File.readlines(File.join(out_dir, "samples.jsonl")).size, :>=, 2, "the samples taken before"
    refute File.exist?(File.join(out_dir, "summary.json"))
  end

  def help = mallard("heap", "--help").first

  # How the views word a summary printed with --json.
  def sentences(summary) = Mallard::Report::HeapSentences.new(Mallard::Summary::Heap.from_h(summary))

  def heap(app, *options)
    out, err, status = mallard("heap", app, *options, "--json", "--out", run_dir, env: { "MALLARD_TEST_TAG" => @tag },
                                                                                  timeout: 240)
    assert_equal 0, status.exitstatus, err
    assert eventually(5) { processes_tagged(@tag).empty? }, -> { "left: #{command_lines(processes_tagged(@tag))}" }
    [JSON.parse(out), run_dir]
  end

  def assert_dumps_reported(summary)
    summary["dumps"].each do |dump|
      assert_operator dump["rss_kb"], :>, 0, "the app's RSS as it forked"
      assert_operator dump["dump_s"], :>, 0
    end
    assert summary.dig("wait", "waited_s"), "how long the run waited after the load"
    assert_nil summary.dig("wait", "gave_up")
    %w[during outside].each { |part| assert_operator summary.dig("latency", part, "answered"), :>, 0, part }
  end

  def assert_only_heap_is_theirs(out_dir, user)
    opened = Dir.glob(File.join(out_dir, "*")).reject { |path| path.end_with?("/heap", "/agent.jsonl") }
    assert_empty(opened.select { |path| File.stat(path).uid == user.uid }, "only heap/ and agent.jsonl are the app's")
  end

  # The heap view's pointer: `mallard report --soak RUN` shows the soak that ran, not the heap view again.
  def assert_report_shows_the_soak
    out, err, status = mallard("report", "--soak", run_dir, "--json")
    assert_equal 0, status.exitstatus, err
    assert_equal "soak", JSON.parse(out)["kind"]
    assert_equal "heap", JSON.parse(mallard("report", run_dir, "--json").first)["kind"]
  end

  def owner_mode(path)
    stat = File.stat(path)
    [stat.uid, stat.mode & 0o777]
  end

  def line_of(file, text) = File.readlines(file).index { |line| line.include?(text) } + 1

  def root_only(why = "--user switches users")
    skip "needs root: #{why}" unless Process.euid.zero?
  end
end

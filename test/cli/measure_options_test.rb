# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# Bad values for `soak` and `compare`, through the real CLI: each is one line on stderr, exit 64,
# and nothing started or created — no run directory, under the working directory or at --out.
class MeasureOptionsTest < Minitest::Test
  APP = File.expand_path("../fixtures/apps/hello", __dir__)
  SCRIPT = File.expand_path("../fixtures/scripts/no_cache.rb", __dir__)
  URL = "http://127.0.0.1:{port}/"
  SOLID_QUEUE = File.expand_path("../fixtures/apps/solid_queue", __dir__)
  ENQUEUE = File.join(SOLID_QUEUE, "workload.rb")
  GOOD_JOB = File.expand_path("../fixtures/apps/good_job", __dir__)
  COMMAND = ["--", "puma", "--bind", "tcp://127.0.0.1:{port}", File.join(APP, "config.ru")].freeze

  # [argv, what stderr must say]
  BAD = [
    [["soak", APP, "--interval", "100", "--duration", "20"], /--interval 100.0 leaves fewer than 12 samples/],
    [["soak", APP, "--interval", "0.01"], /--interval must be between 0.05 s/],
    [["soak", APP, "--duration", "1e400"], /--duration must be between .* not Infinity/],
    [["soak", APP, "--duration", "NaN"], /invalid argument: --duration NaN/],
    [["soak", APP, "--duration", "0"], /--duration must be between 0.6 s/],
    [["soak", APP, "--duration", "90000"], /and 86400 s \(a day\), not 90000.0/],
    [["soak", APP, "--concurrency", "100000000"], /--concurrency must be between 1 and 10000/],
    [["soak", APP, "--concurrency", "0"], /--concurrency must be between 1 and 10000/],
    [["soak", APP, "--requests", "0"], /--requests must be between 1 and/],
    [["soak", APP, "--requests", "100000000000000"], /--requests must be between 1 and/],
    [["soak", APP, "--threads", "0"], /--threads must be between 1 and 1024, not 0/],
    [["soak", APP, "--workers", "-1"], /--workers must be between 0 and 256, not -1/],
    [["soak", APP, "--boot-timeout", "0"], /--boot-timeout must be more than 0/],
    [["soak", APP, "--max-errors", "101"], /--max-errors must be a percentage from 0 to 100/],
    [["soak", APP, "--max-errors", "-0.5"], /--max-errors must be a percentage from 0 to 100/],
    [["soak", APP, "--memory-limit", "600X"], /--memory-limit takes a size from 1M to 1T.*not 600X/],
    [["soak", APP, "--memory-limit", "512K"], /--memory-limit takes a size from 1M to 1T/],
    [["compare", APP, "--memory-limit", "lots"], /--memory-limit takes a size .*not lots/],
    [["soak", "--url", "http://127.0.0.1:99999/", "--", "puma"], /port outside 1-65535/],
    [["soak", "--url", "ftp://127.0.0.1:{port}/", *COMMAND], %r{--url must be http:// or https://}],
    [["soak", "--url", "http://a b/", *COMMAND], /is not a URL/],
    [["soak", "--url", "http://example.com:{port}/", *COMMAND], /loads only 127.0.0.1 or localhost, not example.com/],
    [["soak", "--url", URL, "--", "puma"], /--url has \{port\} but the command does not/],
    [["soak", "--url", "http://127.0.0.1:3000/", *COMMAND], /the command has \{port\} but --url does not/],
    [["soak", "--url", URL, "--"], /-- must be followed by the server command/],
    [["soak", "--", "puma"], /a command target needs --url/],
    [["soak", APP, "--path", "/a b"], %r{request path "/a b" must start with / and hold only printable ASCII}],
    [["soak", APP, "--path", "/caf\xC3"], %r{request path "/caf\\xC3"}],
    [["soak", APP, "--path", "relative"], %r{must start with /}],
    [["soak", APP, "--paths", "EMPTY"], /--paths .* holds no paths/],
    [["soak", APP, "--paths", "NOT_UTF8"], %r{request path "/a\\xFF"}],
    [["soak", APP, "--paths", "/nonexistent/paths.txt"], /cannot read --paths/],
    [["soak", APP, "--html", "TMP"], /--html .* is a directory/],
    [["soak", APP, "--html", "/nonexistent/report.html"], %r{--html: no directory /nonexistent}],
    [["soak", APP, "--html", "/proc/report.html"], /--html: cannot write/],
    [["soak", APP, "--out", "/proc/mallard-run"], %r{cannot create --out /proc/mallard-run}],
    [["soak", APP, "--out", "/dev/null"], %r{--out /dev/null exists and is not a directory}],
    [["soak", APP, "--allocator", "nope"], /unknown allocator 'nope'/],
    [["soak", APP, "--until-decided", "5", "--duration", "20"], /--until-decided's budget must be at least --duration/],
    [["soak", APP, "--until-decided", "--requests", "100"], /--until-decided and --requests both say when/],
    [["soak", "--script", SCRIPT, "--until-decided"], /--until-decided applies to a server under load/],
    [["soak", APP, "--full-gc-every", "0.5"], /--full-gc-every must be between 1 and 86400 seconds, or off/],
    [["soak", APP, "--full-gc-every", "often"], /invalid argument: --full-gc-every often \(seconds, or off\)/],
    [["soak", APP, "--concurrency", "many"], /invalid argument: --concurrency many \(a number, or auto\)/],
    [["soak", APP, "--concurrency", "auto", "--rate", "5"], /--concurrency auto finds a closed loop's load/],
    [["compare", APP, "--concurrency", "auto"], /--concurrency auto is for soak/],
    [["soak", APP, "--url", "http://127.0.0.1:3000/"], /--url goes with -- CMD/],
    [["soak", "--workers", "2", "--url", URL, *COMMAND],
     /--workers applies to an app directory served by Puma; with -- CMD, pass the worker count in CMD/],
    [["soak", "--threads", "2", "--url", URL, *COMMAND], /pass the thread count in CMD/],
    [["soak", "--script", SCRIPT, "--workers", "2"], /--workers applies to an app directory .* not a server/],
    [["soak", "--script", SCRIPT, "--duration", "5"], /--duration applies to a server under load/],
    [["soak", "--script", SCRIPT, "--path", "/x"], /--path applies to a server under load/],
    [["soak", "--script", SCRIPT, "--ruby-client"], /--ruby-client applies to a server under load/],
    [["soak", "--script", SCRIPT, "--url", URL], /--url goes with -- CMD; a --script/],
    [["soak", "--script", SCRIPT, APP], /give --script FILE or an app directory, not both/],
    [["soak", APP, *COMMAND], /give an app directory or --url URL -- CMD, not both/],
    [["soak", APP, APP], /give one app directory, not 2/],
    [["soak"], /give an app directory, --url URL -- CMD, or --script FILE/],
    [["soak", APP, "--user", "no-such-user-here"], /--user no-such-user-here: no such user/],
    [["compare", APP, "--allocators", ""], /--allocators lists no configuration/],
    [["compare", APP, "--allocators", "glibc,nope"], /unknown allocator 'nope'/],
    [["compare", APP, "--repeat", "0"], /--repeat must be between 1 and 100/],
    [["compare", APP, "--cross"], /--cross runs --config and --gc sets on every configuration --allocators names/],
    [["compare", APP, "--interval", "5", "--duration", "10"], /leaves fewer than 12 samples/],
    [["demo", APP], /demo runs on its bundled app/],
    [["soak", "--jobs", "good_job", "--workload", ENQUEUE, "--threads", "3", GOOD_JOB],
     /--threads applies to a Sidekiq worker; GoodJob's threads are its config\.good_job's/],
    [["soak", "--jobs", "good_job", "--workload", ENQUEUE, "--mode", "async", GOOD_JOB],
     /--mode applies to a Solid Queue worker \(--jobs solid_queue\); GoodJob's one process runs its jobs/],
    [["soak", "--jobs", "resque", "--workload", ENQUEUE, "--threads", "3", APP],
     /--threads applies to Puma and Sidekiq; a Resque worker runs one job at a time/],
    [["soak", "--jobs", "resque", "--workload", ENQUEUE, "--mode", "fork", APP], /Resque has one mode/],
    [["soak", "--jobs", "delayed_job", APP],
     /invalid argument: --jobs delayed_job \(one of sidekiq, solid_queue, .*good_job\)/],
    [["soak", "--jobs", "solid_queue", SOLID_QUEUE], /--jobs needs --workload FILE\.rb/],
    [["soak", "--jobs", "solid_queue", "--workload", ENQUEUE, "--threads", "3", SOLID_QUEUE],
     %r{--threads applies to a Sidekiq worker; Solid Queue's threads are its config/queue\.yml's}],
    [["soak", "--jobs", "solid_queue", "--workload", ENQUEUE, "--script", SCRIPT], /give --jobs or --script, not both/],
    [["soak", APP, "--workload", ENQUEUE], /--workload applies to a job worker \(--jobs\)/],
    [["soak", APP, "--idle", "10s"], /--idle applies to a job worker \(--jobs\)/],
    [["soak", "--jobs", "solid_queue", "--idle", "10s", "--workload", ENQUEUE, SOLID_QUEUE],
     /--workload does not go with --idle \(no workload, for its DURATION\)/],
    [["soak", "--jobs", "solid_queue", "--idle", "10s", "--duration", "5", SOLID_QUEUE],
     /--duration does not go with --idle/],
    [["soak", "--jobs", "solid_queue", "--idle", "soon", SOLID_QUEUE], /invalid argument: --idle soon/],
    [["compare", "--jobs", "solid_queue", "--idle", "10s", SOLID_QUEUE], /invalid option: --idle/],
    [["soak", APP, "--mode", "async"], /--mode applies to a job worker \(--jobs\)/],
    [["soak", "--jobs", "solid_queue", "--workload", ENQUEUE, "--mode", "puma", "--threads", "3", SOLID_QUEUE],
     /--threads applies to a Sidekiq worker; Solid Queue's threads are its config/],
    [["soak", "--jobs", "solid_queue", "--workload", ENQUEUE, "--mode", "forked", SOLID_QUEUE],
     /--mode takes fork, async, puma, not forked/],
    [["soak", "--sidekiq", "--workload", ENQUEUE, "--mode", "async", "--", "sidekiq"],
     /--mode applies to a Solid Queue worker \(--jobs solid_queue\); Sidekiq has one mode/]
  ].freeze

  def setup
    @tmp = Dir.mktmpdir("mallard-options-test")
    @work = File.join(@tmp, "work")
    Dir.mkdir(@work)
    File.write(File.join(@tmp, "empty.txt"), "# nothing but a comment\n\n")
    File.binwrite(File.join(@tmp, "not-utf8.txt"), "/ok\n/a\xFF\n".b)
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_every_bad_value_is_one_line_and_exit_64_before_anything_is_created
    BAD.each do |argv, message|
      status, out, err = run_cli(*argv.map { |arg| placeholders(arg) })
      shown = argv.join(" ")

      assert_equal 64, status, "#{shown}: #{err}"
      assert_equal "", out, shown
      assert_equal 1, err.lines.size, "#{shown}: one line, not\n#{err}"
      assert_match message, err, shown
      assert_empty Dir.children(@work), "#{shown} left #{Dir.children(@work)} behind"
    end
  end

  # A run directory named by --out is not created either when the refusal comes from a later check.
  def test_an_out_directory_is_not_created_for_a_refused_run
    out = File.join(@tmp, "run")
    status, = run_cli("soak", APP, "--out", out, "--html", File.join(@tmp, "missing", "r.html"))

    assert_equal 64, status
    refute File.exist?(out)
  end

  def test_the_url_host_is_compared_without_regard_to_case
    %w[LOCALHOST Localhost 127.0.0.1 [::1]].each do |host|
      target = Mallard::Target::ServerCommand.new(argv: ["puma", "-p", "{port}"], url: "http://#{host}:{port}/")

      assert_equal "command", target.kind, host
    end
  end

  # "--url URL: the URL to load": its path is loaded unless --path names others.
  def test_the_url_path_is_the_page_loaded_unless_path_is_given
    { [] => ["/health?full=1"], ["--path", "/rows"] => ["/rows"] }.each do |extra, loaded|
      options = Mallard::CLI::MeasureOptions.new
      parser = OptionParser.new { |opts| options.define(opts) }
      argv = ["--url", "http://127.0.0.1:{port}/health?full=1", *extra, "--", "puma", "-p", "{port}"]
      operands, command = options.parse(parser, argv)
      options.target(operands, command)

      assert_equal loaded, options.soak.paths, extra.inspect
    end
  end

  def test_help_lists_the_new_options_and_their_limits
    status, out, = run_cli("soak", "--help")

    assert_equal 0, status
    assert_match(/--max-errors PCT/, out)
    assert_match(/--user NAME/, out)
    assert_match(/at most a day/, out)
  end

  def test_a_short_run_without_interval_samples_more_often_to_keep_12_samples
    options = Mallard::CLI::MeasureOptions.new
    parser = OptionParser.new { |opts| options.define(opts) }
    operands, command = options.parse(parser, [APP, "--duration", "3"])
    options.target(operands, command)

    assert_in_delta 0.25, options.soak.interval
    assert_in_delta 1.0, options.soak.max_error_pct
  end

  private

  def placeholders(arg)
    { "EMPTY" => File.join(@tmp, "empty.txt"), "NOT_UTF8" => File.join(@tmp, "not-utf8.txt"),
      "TMP" => @tmp }.fetch(arg, arg)
  end

  # In a directory of its own, so a default run directory (.mallard/runs) would show up there.
  def run_cli(*argv)
    out = StringIO.new
    err = StringIO.new
    status = Dir.chdir(@work) { Mallard::CLI.new.run(argv, out: out, err: err, env: {}) }
    [status, out.string, err.string]
  end
end

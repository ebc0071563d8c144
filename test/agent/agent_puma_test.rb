# frozen_string_literal: true

# The agent is self-contained, so its tests load only the agent's files, not the whole gem.
require "minitest/autorun"
require "fileutils"
require "json"
require "net/http"
require "socket"
require "timeout"
require "tmpdir"
require "mallard/target/rackup"
require "mallard"

# The agent inside a real Puma, single and clustered, started the way mallard starts a subject:
# RUBYOPT loads the agent, the generated rackup puts the middleware in front of the user's app.
class AgentPumaTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)
  LIB = File.join(ROOT, "lib")
  APP_DIR = File.join(ROOT, "test/fixtures/apps/chunky")
  TEST_TIMEOUT = 60
  BOOT_TIMEOUT = 30
  INTERVAL = 0.2
  # 50 requests: 40 answered in 5 chunks, 10 in 300.
  PATHS = ((["/"] * 40) + (["/lines"] * 10)).freeze
  CHUNKS = { "/" => 5, "/lines" => 300 }.freeze

  def setup
    @dir = Dir.mktmpdir("mallard-agent")
    @out = File.join(@dir, "agent.jsonl")
    @log = File.join(@dir, "puma.log")
    @t0 = now
  end

  def teardown
    stop_puma if @pid
    FileUtils.rm_rf(@dir)
  end

  def test_clustered_puma_writes_records_from_each_worker
    Timeout.timeout(TEST_TIMEOUT) do
      port = start_puma(workers: 2)
      PATHS.each { |path| assert_equal "200", get(port, path).code }
      sleep INTERVAL * 2 # some periodic records, not only the final ones
      stop_puma

      by_pid = records.group_by { |record| record["pid"] }
      assert_equal [worker_pids.sort, 2], [(by_pid.keys - [@master]).sort, worker_pids.size], log_text
      assert_equal [0], by_pid.fetch(@master).map { |record| record["requests"] }.uniq, "the master serves nothing"
      assert_consistent(by_pid)
      assert_each_says_its_ruby(worker_pids)
    end
  end

  def test_single_puma_records_every_request_in_one_process
    Timeout.timeout(TEST_TIMEOUT) do
      port = start_puma(workers: 0)
      response = get(port, "/")
      PATHS.drop(1).each { |path| get(port, path) }
      stop_puma

      assert_equal 5, response.body.lines.size
      by_pid = records.group_by { |record| record["pid"] }
      assert_equal [@master], by_pid.keys
      assert_consistent(by_pid)
    end
  end

  # Each GC of the serving process once, on the run's clock, with the requests served when it was written.
  def test_gc_lines_become_the_runs_gc_events
    Timeout.timeout(TEST_TIMEOUT) do
      port = start_puma(workers: 0)
      20.times { assert_equal "200", get(port, "/garbage").code }
      stop_puma

      events = Mallard::Run::SoakReader.read(Mallard::Run::Directory.new(@dir)).gc_events
      assert_operator events.count { |event| event.requests.positive? }, :>, 0, "GCs while serving"
      assert_gc_events(events, [@master])
    end
  end

  def test_the_generated_rackup_loads_the_app_under_its_real_path
    Timeout.timeout(TEST_TIMEOUT) do
      port = start_puma(workers: 0)

      assert_equal File.join(APP_DIR, "config.ru"), get(port, "/file").body
    end
  end

  def test_an_unwritable_agent_file_costs_one_warning_and_never_a_failed_request
    Timeout.timeout(TEST_TIMEOUT) do
      @out = File.join(@dir, "missing", "agent.jsonl")
      port = start_puma(workers: 0)
      sleep INTERVAL * 3 # several records fail to be written
      10.times { assert_equal "200", get(port, "/").code }
      stop_puma

      assert_equal 1, log_text.scan("mallard agent: cannot record to").size, log_text
    end
  end

  def test_the_agent_loads_only_itself_and_without_an_output_file_does_nothing
    probe = "p [Mallard::Agent.recorder.class.name, Thread.list.size, defined?(Mallard::CLI), " \
            "$LOADED_FEATURES.grep(%r{/mallard[/.]}).map { |f| f.delete_prefix('#{LIB}/') }.sort]"
    idle = ruby_with_agent(probe, "MALLARD_AGENT_OUT" => nil)
    active = ruby_with_agent(probe, "MALLARD_AGENT_OUT" => @out, "MALLARD_GC_EVENTS" => "hooks")
    files = %w[agent agent/gc_snapshot agent/json_text agent/middleware agent/owner agent/record_line agent/recorder
               agent/ruby_state agent/switches].map { |name| "mallard/#{name}.rb" }
    # Recording, with GC hooks: the timeline's source, and the memory ledger's reading and the malloc statistics
    # extension; not the other timeline, nor the parts only some runs ask for (test below).
    recording = %w[agent/boot_reading.rb agent/gc_line.rb agent/gc_timeline.rb agent/ledger.rb agent/malloc_stats.rb
                   extension_abi.rb extension_loader.rb version.rb] +
                %w[gc_events_ext malloc_stats_ext].map { |name| "#{name}.#{RbConfig::CONFIG['DLEXT']}" }

    assert_equal ["NilClass", 1, nil, files].inspect, idle
    assert_equal ["Mallard::Agent::Recorder", 2, nil, (files + recording.map { |f| "mallard/#{f}" }).sort].inspect,
                 active
    loaded = ruby_with_agent("p $LOADED_FEATURES", "MALLARD_AGENT_OUT" => @out)
    refute_includes loaded, "objspace.so", "allocation tracing's library is loaded only for `mallard heap`"
    refute_match %r{/json(\.rb|/)}, loaded, "json's methods on every core class slowed the demo app's requests by 2%"
  end

  # Each is code kept live in the app's heap from boot, which moves an allocation-bound app's GCs (bench/README).
  def test_the_parts_only_some_runs_need_are_loaded_only_when_asked_for
    probe = "p $LOADED_FEATURES.grep(%r{/mallard/agent/(heap_dumper|sidekiq_hook|job_middleware|mappings)[.]}).map { " \
            "|f| File.basename(f, '.rb') }.sort"
    asked = { "MALLARD_HEAP_DIR" => @dir, "MALLARD_JOBS" => "on", "MALLARD_MAPPINGS_INTERVAL" => "30" }

    assert_equal "[]", ruby_with_agent(probe, "MALLARD_AGENT_OUT" => @out)
    assert_equal %w[heap_dumper job_middleware mappings sidekiq_hook].inspect,
                 ruby_with_agent(probe, asked.merge("MALLARD_AGENT_OUT" => @out))
  end

  # Its GC hooks send every allocation through the slow path before Ruby 3.3: there GC::Profiler records the GCs.
  def test_the_per_gc_timeline_is_on_by_default_from_the_source_that_costs_least
    probe = "p [$LOADED_FEATURES.grep(/gc_events_ext/).size, GC::Profiler.enabled?]"
    default = ruby_with_agent(probe, "MALLARD_AGENT_OUT" => @out)

    assert_equal (RUBY_VERSION >= "3.3" ? [1, false] : [0, true]).inspect, default
    assert_equal "[1, false]", ruby_with_agent(probe, "MALLARD_AGENT_OUT" => @out, "MALLARD_GC_EVENTS" => "hooks")
    assert_equal "[0, true]", ruby_with_agent(probe, "MALLARD_AGENT_OUT" => @out, "MALLARD_GC_EVENTS" => "profiler")
    assert_equal "[0, false]", ruby_with_agent(probe, "MALLARD_AGENT_OUT" => @out, "MALLARD_GC_EVENTS" => "off")
  end

  private

  # Outside the test run's own bundle (bundler/setup would load mallard's gemspec), as in a subject.
  def ruby_with_agent(code, env)
    clean = { "RUBYOPT" => nil, "BUNDLE_GEMFILE" => nil, "RUBYLIB" => nil }
    Timeout.timeout(TEST_TIMEOUT) do
      IO.popen(clean.merge(env), [Gem.ruby, "-I#{LIB}", "-rmallard/agent", "-e", code], &:read).chomp
    end
  end

  # Every request once, in the right process's records, with the right chunk count; time and GC
  # counters only moving forward within each process.
  # The master at its boot and its end; each worker as it was forked (what it inherited) and at its end.
  def assert_each_says_its_ruby(workers)
    said = lines.select { |line| line["kind"] == "ruby" }.map { |line| [line["pid"], line["at"]] }

    assert_equal [[@master, "boot"], [@master, "end"], *workers.flat_map { |pid| [[pid, "fork"], [pid, "end"]] }].sort,
                 said.sort
  end

  def assert_consistent(by_pid)
    finals = by_pid.transform_values { |list| list.last["requests"] }
    assert_equal PATHS.size, finals.values.sum
    assert_equal PATHS.tally.transform_keys(CHUNKS), records.flat_map { |record| record["chunks"] }.tally
    by_pid.each do |pid, list|
      assert_equal finals[pid], list.sum { |record| record["in_app_ms"].size }, "pid #{pid}"
      assert_moves_forward(list)
    end
    assert_within_the_run(by_pid.keys)
  end

  def assert_within_the_run(pids)
    assert_operator records.map { |record| record["t"] }.max, :<, now - @t0
    assert_gc_events(gc_events, pids)
  end

  # A forked worker starts with an empty ring: no GC may be reported by two processes.
  def assert_gc_events(events, pids)
    refute_empty events
    assert_empty events.map(&:pid) - pids
    assert_equal events.size, events.map { |event| [event.t, event.pause_ms] }.uniq.size, "a GC reported twice"
    events.each do |event|
      assert_operator event.t, :>, 0, event.inspect
      assert_operator event.t, :<, now - @t0, event.inspect
      assert_operator event.pause_ms, :>, 0, event.inspect
      refute_nil event.requests, event.inspect
    end
  end

  def assert_moves_forward(list)
    assert_forward(list.map { |record| record["t"] }, strictly: true)
    assert_forward(list.map { |record| record["requests"] })
    %w[count minor_gc_count major_gc_count total_allocated_objects].each do |key|
      assert_forward(list.map { |record| record.dig("gc", key) })
    end
  end

  def assert_forward(values, strictly: false)
    values.each_cons(2) do |a, b|
      assert_operator b, strictly ? :> : :>=, a, values.inspect
    end
  end

  # Returns the port once Puma listens and all its workers have booted.
  def start_puma(workers:)
    port = free_port
    rackup = Mallard::Target::Rackup.write(File.join(@dir, "mallard.ru"),
                                           app_config_ru: File.join(APP_DIR, "config.ru"))
    @pid = @master = Process.spawn(agent_env, Gem.ruby, puma_bin, "-b", "tcp://127.0.0.1:#{port}", "-t", "1:4",
                                   "-w", workers.to_s, rackup, chdir: APP_DIR, pgroup: true, %i[out err] => @log)
    wait_until("puma to listen") { listening?(port) }
    wait_until("#{workers} workers to boot") { worker_pids.size == workers }
    port
  end

  def agent_env
    { "RUBYOPT" => "-I#{LIB} -rmallard/agent", "MALLARD_AGENT_OUT" => @out,
      "MALLARD_AGENT_INTERVAL" => INTERVAL.to_s, "MALLARD_T0" => format("%.6f", @t0) }
  end

  def puma_bin
    Gem.bin_path("puma", "puma")
  rescue Gem::Exception
    skip "puma is not installed"
  end

  # Puma is stopped as mallard stops a subject: TERM to its process group, then wait for it.
  def stop_puma
    Process.kill("TERM", -@pid)
    Process.wait(@pid)
  rescue Errno::ESRCH, Errno::ECHILD
    nil
  ensure
    @pid = nil
  end

  def wait_until(what)
    deadline = now + BOOT_TIMEOUT
    until yield
      flunk "puma exited while waiting for #{what}:\n#{log_text}" if Process.wait(@pid, Process::WNOHANG)
      flunk "waited #{BOOT_TIMEOUT}s for #{what}:\n#{log_text}" if now > deadline
      sleep 0.05
    end
  end

  def listening?(port)
    TCPSocket.new("127.0.0.1", port).close
    true
  rescue SystemCallError
    false
  end

  def free_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end

  # A new connection per request, so a cluster's workers share the load.
  def get(port, path)
    Net::HTTP.get_response(URI("http://127.0.0.1:#{port}#{path}"))
  end

  # The interval records; lines also holds the "gc" lines.
  def records
    lines.select { |line| line["kind"] == "agent" }
  end

  def lines
    @lines ||= File.readlines(@out).map { |line| JSON.parse(line) }
  end

  def gc_events
    Mallard::Run::SoakReader.records(lines)["gc"]
  end

  def worker_pids
    log_text.scan(/Worker \d+ \(PID: (\d+)\) booted/).flatten.map { |pid| Integer(pid) }
  end

  def log_text
    File.exist?(@log) ? File.read(@log) : ""
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end

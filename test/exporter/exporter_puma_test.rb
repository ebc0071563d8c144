# frozen_string_literal: true

require "test_helper"
require "net/http"
require "tmpdir"
require_relative "../support/puma_server"

# The exporter in a real clustered Puma, loaded the way production loads it (RUBYOPT): one endpoint, on
# loopback, covering the master and each worker; and in plain Rubies, where it must never break the app.
class ExporterPumaTest < Minitest::Test
  include Processes

  LIB = File.join(Processes::ROOT, "lib")
  RUBYOPT = "-I#{LIB} -rmallard/exporter".freeze

  def teardown
    @server&.stop
    super
  end

  def test_one_endpoint_covers_the_master_and_its_workers_on_loopback
    Timeout.timeout(TEST_TIMEOUT) do
      port = Mallard::Target::FreePort.pick
      @server = PumaServer.new("hello", workers: 2, env: exporter_env(port)).start
      master = @server.pid
      text = eventually(20) { (found = scrape(port)) && pids_in(found).size == 3 && found } || scrape(port)
      workers = Mallard::Probe::ProcessTree.pids(master) - [master]

      assert_equal 2, workers.size, @server.log
      assert_equal ([master] + workers).sort, pids_in(text).sort, text
      assert_roles(text, master, workers)
      assert_memory_parts(settled_scrape(port) || text, [master] + workers)
      assert_conditions(text, master, workers)
      assert_the_master_serves_the_tree(port, text, master)
    end
  end

  # What curl and promtool get (no Accept: OpenMetrics), checked by Prometheus's own linter.
  def test_a_real_scrape_passes_promtool
    Timeout.timeout(TEST_TIMEOUT) do
      port = Mallard::Target::FreePort.pick
      @server = PumaServer.new("hello", workers: 1, env: exporter_env(port)).start
      eventually(20) { scrape(port)&.include?('role="worker"') }
      Net::HTTP.get(URI("#{@server.url}/users/12"))
      eventually(5) { scrape(port)&.include?("ruby_http_requests_total") }
      response = get(port, accept: nil)
      out, status = Open3.capture2e("promtool", "check", "metrics", stdin_data: response.body)

      assert_equal "text/plain; version=0.0.4; charset=utf-8", response["Content-Type"]
      assert_predicate status, :success?, out
      assert_empty out
      assert_equal "404", get(port, accept: nil, path: "/").code
    end
  end

  def test_stopping_the_master_removes_its_readings
    Timeout.timeout(TEST_TIMEOUT) do
      port = Mallard::Target::FreePort.pick
      @server = PumaServer.new("hello", workers: 1, env: exporter_env(port)).start
      master = @server.pid
      eventually(20) { scrape(port)&.include?('role="worker"') }

      refute_empty readings_dirs(master)
      @server.stop
      assert_empty eventually(5) { readings_dirs(master).empty? && [] } || readings_dirs(master)
    end
  end

  # A value that names no port, or a port already taken: the app runs on, told once on stderr.
  def test_it_never_breaks_the_app
    out, err, status = ruby_with_exporter("MALLARD_METRICS" => "localhost:http")

    assert_equal ["ok\n", 0], [out, status.exitstatus]
    assert_equal "mallard exporter: not started: MALLARD_METRICS=localhost:http names no port; give HOST:PORT, " \
                 "PORT or off\n", err

    taken = TCPServer.new("127.0.0.1", 0)
    out, err, status = ruby_with_exporter("MALLARD_METRICS" => "127.0.0.1:#{taken.addr[1]}")
    assert_equal ["ok\n", 0], [out, status.exitstatus]
    assert_match(/\Amallard exporter: cannot listen on 127\.0\.0\.1:\d+ \(.*in use.*\); this process exports nothing/,
                 err)
    assert_equal 1, err.lines.size
  ensure
    taken&.close
  end

  def test_off_loads_nothing_and_says_nothing
    out, err, status = ruby_with_exporter("MALLARD_METRICS" => "off")

    assert_equal ["ok\n", "", 0], [out, err, status.exitstatus]
  end

  # It runs inside the app: its own files and the standard library, never the whole gem or json.
  def test_loads_only_its_own_files
    out, err, status = Timeout.timeout(TEST_TIMEOUT) do
      Open3.capture3({ "RUBYOPT" => RUBYOPT, "MALLARD_METRICS" => "127.0.0.1:0" }, Gem.ruby, "-e",
                     "p [defined?(Mallard::CLI), defined?(JSON), defined?(Mallard::Exporter::Server)]")
    end

    assert_predicate status, :success?, err
    assert_equal %([nil, nil, "constant"]\n), out
  end

  private

  # What the master alone serves: the container, the one endpoint, and the tree's requests.
  def assert_the_master_serves_the_tree(port, text, master)
    assert_container_on_the_master(text, master)
    assert_served_once_on_loopback(port, master)
    assert_requests_summed_over_the_tree(port, master)
  end

  # Puma's workers count the requests they serve (each on a new connection, so both workers take some); the master
  # serves their sum, one series per method and path, ids as :id.
  def assert_requests_summed_over_the_tree(port, master)
    %w[/ /slow /users/1 /users/2 /users/0a1b2c3d4e5f6a7b8c9d /].each do |path|
      Net::HTTP.get(URI("#{@server.url}#{path}"))
    end
    counted = /^ruby_http_requests_total\{pid="#{master}",role="master",method="GET",path="([^"]*)"\} (\d+)$/
    text = eventually(5) { (found = scrape(port)) && found.scan(counted).sum { |_, n| n.to_i } >= 6 && found }

    assert_equal({ "/" => 2, "/slow" => 1, "/users/:id" => 3 }, text.to_s.scan(counted).to_h.transform_values(&:to_i),
                 text)
    refute_match(/^ruby_http_requests_total\{pid="\d+",role="worker"/, text.to_s, "only the master's sum")
  end

  def exporter_env(port)
    { "RUBYOPT" => RUBYOPT, "MALLARD_METRICS" => "127.0.0.1:#{port}", "MALLARD_METRICS_INTERVAL" => "0.2",
      "MALLARD_MAPPINGS_INTERVAL" => "30" }
  end

  def ruby_with_exporter(env)
    Timeout.timeout(TEST_TIMEOUT) do
      Open3.capture3(env.merge("RUBYOPT" => RUBYOPT), Gem.ruby, "-e", "sleep 1.5; puts :ok")
    end
  end

  def get(port, accept: "application/openmetrics-text;version=1.0.0", path: "/metrics")
    Net::HTTP.start("127.0.0.1", port, open_timeout: 2, read_timeout: 5) do |http|
      http.get(path, accept ? { "Accept" => accept } : {})
    end
  end

  def scrape(port)
    response = get(port)
    assert_equal "application/openmetrics-text; version=1.0.0; charset=utf-8", response["Content-Type"]
    response.body
  rescue SystemCallError, Net::ReadTimeout, Net::OpenTimeout
    nil
  end

  # A worker's first readings are taken as it finishes starting, and each reads its RSS before its mappings, whose
  # text and parse allocate: one full run had parts of 19.4 MB against 21.7 MB read at the scrape (10.2%). A scrape
  # a second later compares readings taken after that.
  def settled_scrape(port)
    sleep 1
    scrape(port)
  end

  def pids_in(text)
    text.scan(/^ruby_process_rss_bytes\{pid="(\d+)"/).flatten.map(&:to_i)
  end

  # The listening socket, from /proc/net/tcp: 127.0.0.1 (0100007F) only, and nothing on tcp6.
  def assert_loopback_only(port)
    listening = %w[tcp tcp6].flat_map do |file|
      File.readlines("/proc/net/#{file}").drop(1).map(&:split)
          .select { |fields| fields[3] == "0A" && fields[1].end_with?(format(":%04X", port)) }.map { |f| f[1] }
    end
    assert_equal [format("0100007F:%04X", port)], listening
  end

  def assert_roles(text, master, workers)
    assert_includes text, %(ruby_process_pss_bytes{pid="#{master}",role="master"})
    workers.each { |pid| assert_match(/^ruby_gc_heap_live_slots\{pid="#{pid}",role="worker"\} \d+$/, text) }
    assert_equal 3, text.lines.grep(/\Aruby_allocator_info\{.*allocator="glibc",via="default"/).size
    assert_equal "# EOF\n", text.lines.last
  end

  # Each process's RSS in the ledger's parts, adding up to the RSS read from outside at the scrape, within what a
  # process can change between its own reading and the scrape.
  def assert_memory_parts(text, pids)
    pids.each do |pid|
      parts = text.scan(/^ruby_memory_part_bytes\{pid="#{pid}",role="\w+",part="([^"]+)"\} (\d+)$/).to_h
      rss = text[/^ruby_process_rss_bytes\{pid="#{pid}",.*\} (\d+)$/, 1].to_i

      assert_includes parts.keys, "malloc held free", text
      assert_includes parts.keys, "stacks"
      assert_in_delta rss, parts.values.sum(&:to_i), 0.1 * rss, parts.inspect
    end
  end

  # Each worker runs Puma's pool of 2 threads (PumaServer's 2:2), the master none; every process may run on the CPUs
  # this test may; the Ruby is this one.
  def assert_conditions(text, master, workers)
    workers.each { |pid| assert_match(/^ruby_puma_pool_threads\{pid="#{pid}",role="worker"\} 2$/, text) }
    assert_match(/^ruby_puma_pool_threads\{pid="#{master}",role="master"\} 0$/, text)
    cpus = Mallard::Cpus::Affinity.allowed.size
    assert_equal 3, text.scan(/^ruby_process_cpus\{pid="\d+",role="\w+"\} #{cpus}$/).size, text
    assert_includes text, %(ruby_version_info{pid="#{master}",role="master",version="#{RUBY_VERSION}",yjit="false"} 1)
  end

  # The tree's memory cgroup, on the master alone: the one /proc/MASTER/cgroup names, its charge and high-water mark.
  def assert_container_on_the_master(text, master)
    path = File.read("/proc/#{master}/cgroup")[/^\d+:(?:[\w,]*,)?memory(?:,[\w,]*)?:(.*)$/, 1] ||
           File.read("/proc/#{master}/cgroup")[/^0::(.*)$/, 1]
    kinds = text.scan(/^ruby_container_memory_bytes\{pid="(\d+)",role="(\w+)",kind="(\w+)",cgroup="([^"]*)"\} (\d+)$/)

    assert_equal [[master.to_s, "master", path]], kinds.map { |pid, role, _, cgroup| [pid, role, cgroup] }.uniq, text
    figures = kinds.to_h { |_, _, kind, _, value| [kind, Integer(value)] }
    assert_operator figures.fetch("current"), :>, 0
    assert_operator figures.fetch("peak"), :>=, figures.fetch("current")
    oom_kills = %(ruby_container_oom_kills_total{pid="#{master}",role="master",cgroup="#{path}"})
    assert_match(/^#{Regexp.escape(oom_kills)} \d+$/, text)
  end

  def assert_served_once_on_loopback(port, master)
    assert_loopback_only(port)
    assert_private_readings(master)
    assert_equal 1, @server.log.scan("mallard exporter: serving OpenMetrics on http://127.0.0.1:#{port}/metrics " \
                                     "(loopback only; MALLARD_METRICS=HOST:PORT to change)").size, @server.log
  end

  def readings_dirs(master)
    Dir.glob(File.join(Dir.tmpdir, "mallard-metrics-#{master}-*"))
  end

  def assert_private_readings(master)
    dirs = readings_dirs(master)
    assert_equal 1, dirs.size
    assert_equal 0o700, File.stat(dirs.first).mode & 0o777
  end
end

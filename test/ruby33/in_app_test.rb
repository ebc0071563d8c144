# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "net/http"
require_relative "../support/rubies"

# Everything mallard puts inside an app, run on Ruby 3.3.8 built here (bin/rubies) with YJIT on: the agent and its
# GC hooks, glibc-trim's postponed job, the malloc statistics, the heap dump and its scan — each with the C
# extensions mallard built for that Ruby, never those built for its own (one libruby in the maps).
class Ruby33InAppTest < Minitest::Test
  LIB = File.join(Processes::ROOT, "lib")
  SCRIPT = File.join(Processes::ROOT, "test/fixtures/ruby33/in_app.rb")

  def setup
    @tmp = Dir.mktmpdir("mallard-ruby33")
  end

  def teardown
    FileUtils.rm_rf(@tmp)
  end

  def test_the_agent_hooks_trim_and_malloc_statistics_run_on_3_3_with_yjit
    info, records = run_in_app(Rubies::STOCK)

    assert_equal ["3.3.8", true, true], info.values_at("version", "yjit", "trim_installed")
    assert_operator info["trims"].last, :>, info["trims"].first, "glibc-trim ran after the major GC"
    assert_equal "glibc", info["malloc_source"], info["malloc_note"]
    assert_operator info["malloc_in_use"], :>, 0
    assert_gc_hooks(records)
    boot = records["ruby"].find { |state| state.at == "boot" }

    assert_equal [true, "hooks", nil], [boot.yjit, boot.gc_timeline, boot.hooks_unavailable]
  end

  # The jemalloc-linked Ruby: the statistics come from jemalloc itself.
  def test_malloc_statistics_on_the_jemalloc_linked_ruby
    info, = run_in_app(Rubies::JEMALLOC)

    assert_equal "jemalloc", info["malloc_source"], info["malloc_note"]
    assert(info["maps"].any? { |path| path.include?("libjemalloc") }, info["maps"].inspect)
  end

  # A run whose Ruby is not mallard's maps no second libruby: the extensions are the ones built for 3.3.
  def test_only_the_subjects_libruby_and_extensions_are_mapped
    info, = run_in_app(Rubies::STOCK)
    librubies = info["maps"].grep(/libruby/)
    prefix = File.dirname(Rubies.path(Rubies::STOCK), 2)

    assert_equal 1, librubies.size, librubies.inspect
    assert librubies.first.start_with?(prefix), librubies.inspect
    extensions = info["maps"].grep(/_ext\.so\z/)

    assert_equal 3, extensions.size, extensions.inspect # trim, the GC hooks, malloc statistics
    assert(extensions.all? { |path| path.start_with?(Rubies.extensions(Rubies::STOCK)) }, extensions.inspect)
  end

  # Without extensions for its Ruby the agent never loads lib/mallard's (built for mallard's Ruby): it says so,
  # and GC::Profiler times the GCs instead.
  def test_without_extensions_for_its_ruby_the_agent_falls_back_and_says_why
    empty = File.join(@tmp, "no-extensions")
    info, records, err = run_in_app(Rubies::STOCK, "MALLARD_EXT_DIR" => empty)
    boot = records["ruby"].find { |state| state.at == "boot" }

    assert_equal "profiler", boot.gc_timeline
    assert_match(/built for another Ruby .*not this one \(3\.3\.8/, boot.hooks_unavailable)
    assert_match(/GC::Profiler times each GC instead/, err)
    assert_equal [false, nil], [info["trim_installed"], info["malloc_source"]]
    assert_empty info["maps"].grep(/_ext\.so\z/)
    refute_empty records["gc"], "GC::Profiler still timed the GCs"
  end

  # Ruby 3.3's dumps carry SHAPE records: no objects, in either scan.
  def test_a_3_3_heap_dump_is_scanned_without_its_shapes
    run_in_app(Rubies::STOCK)
    dump = File.join(@tmp, "heap.json")
    lines = File.readlines(dump)
    shapes = lines.count { |line| line.include?('"type":"SHAPE"') }
    objects = lines.count { |line| !line.start_with?('{"type":"ROOT"') && !line.include?('"type":"SHAPE"') }

    assert_operator shapes, :>, 0, "3.3 dumps its shapes"
    [Mallard::Run::HeapDump::Extension, Mallard::Run::HeapDump::Tally].each do |scanner|
      assert_equal objects, Mallard::Run::HeapDump.scan(dump, scanner: scanner).objects, scanner.name
    end
  end

  # The exporter on the jemalloc-linked 3.3: its allocator linked, its statistics from jemalloc, trims counted.
  def test_the_exporter_on_ruby33
    port = Mallard::Target::FreePort.pick
    env = Rubies.env(Rubies::JEMALLOC).merge("RUBYOPT" => "-I#{LIB} -rmallard/exporter -rmallard/trim",
                                             "MALLARD_METRICS" => "127.0.0.1:#{port}")
    pid = Process.spawn(env, Rubies.path(Rubies::JEMALLOC), "-e", "loop { GC.start; sleep 0.1 }", err: File::NULL)
    text = nil
    Timeout.timeout(20) { sleep 0.1 until (text = scrape(port))&.include?("ruby_malloc_trims") }

    assert_match(/^ruby_allocator_info\{[^}]*allocator="jemalloc"[^}]*via="linked"/, text)
    assert_match(/^ruby_malloc_in_use_bytes\{[^}]*\} [1-9]/, text)
    assert_match(/^ruby_gc_runs_total\{[^}]*\} [1-9]/, text)
  ensure
    Process.kill("KILL", pid) if pid
    Process.wait(pid) if pid
  end

  private

  def scrape(port)
    Net::HTTP.get(URI("http://127.0.0.1:#{port}/metrics"))
  rescue SystemCallError, Net::ReadTimeout, Net::OpenTimeout, EOFError
    nil
  end

  # @return [Array(Hash, Hash, String)] what the app said, agent.jsonl's records by kind, its stderr
  def run_in_app(ruby, extra_env = {})
    out_path = File.join(@tmp, "agent.jsonl")
    FileUtils.rm_f(out_path)
    env = Rubies.env(ruby).merge("RUBYOPT" => "-I#{LIB} -rmallard/agent -rmallard/trim",
                                 "MALLARD_AGENT_OUT" => out_path, "MALLARD_AGENT_INTERVAL" => "0.1", **extra_env)
    out, err, status = Timeout.timeout(60) do
      Open3.capture3(env, Rubies.path(ruby), SCRIPT, File.join(@tmp, "heap.json"))
    end
    assert_predicate status, :success?, err

    [JSON.parse(out.lines.last), records(out_path), err]
  end

  def records(path)
    Mallard::Run::SoakReader.records(Mallard::Run::JsonLines.read(path).records)
  end

  # Per-GC pauses from the hooks (a longest step only they measure), and the forced major GC's major_by.
  def assert_gc_hooks(records)
    events = records["gc"]

    assert_operator events.size, :>=, 3
    assert(events.all? { |event| event.pause_ms.positive? && event.max_pause_ms }, events.first.inspect)
    majors = events.select(&:major)

    refute_empty majors
    assert_includes majors.map(&:major_by), "force"
  end
end

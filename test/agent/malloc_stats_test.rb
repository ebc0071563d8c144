# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "json"
require "rbconfig"
require "tmpdir"

# Mallard::Agent::MallocStats in real Ruby processes, one per allocator installed here (glibc, and each of the
# others preloaded the way mallard preloads them), each keeping a 50 MB malloc'd string between two readings.
class MallocStatsTest < Minitest::Test
  CATALOG = Mallard::Allocators::Catalog.default
  LIB = File.join(Processes::ROOT, "lib")
  BUFFER = 50_000_000
  # Before and after the buffer, and the objects 1,000 readings made (a reading fits a Fixnum: none); counted the
  # second time round, as a call site's first run sets up caches that are Ruby objects.
  PROBE = <<~RUBY.freeze
    require "mallard/agent/malloc_stats"
    stats = Mallard::Agent::MallocStats
    before = stats.in_use
    kept = "x" * #{BUFFER}
    after = stats.in_use
    made = nil
    2.times do
      made = GC.stat(:total_allocated_objects)
      1000.times { stats.in_use }
      made = GC.stat(:total_allocated_objects) - made
    end
    puts "source=\#{stats.source} before=\#{before.inspect} after=\#{after.inspect} objects=\#{made} " \\
         "kept=\#{kept.bytesize} whole_gem=\#{!defined?(Mallard::CLI).nil?}"
    puts "reason=\#{stats.unavailable_reason.inspect}"
  RUBY

  def setup
    skip "mallard/malloc_stats_ext is not built (rake compile)" unless
      File.file?(File.join(LIB, "mallard/malloc_stats_ext.#{RbConfig::CONFIG['DLEXT']}"))
  end

  def test_glibc_counts_the_buffer
    result = probe("glibc")

    assert_equal "glibc", result["source"]
    assert_grew_by_the_buffer(result)
    assert_nil result["reason"]
  end

  def test_preloaded_jemalloc_counts_the_buffer
    result = probe("jemalloc")

    assert_equal "jemalloc", result["source"]
    assert_grew_by_the_buffer(result)
  end

  def test_preloaded_tcmalloc_counts_the_buffer
    result = probe("tcmalloc")

    assert_equal "tcmalloc", result["source"]
    assert_grew_by_the_buffer(result)
  end

  def test_preloaded_mimalloc_is_named_with_no_reading_and_a_reason
    result = probe("mimalloc")

    assert_equal "mimalloc", result["source"]
    assert_nil result["before"]
    assert_nil result["after"]
    assert_match(/mimalloc counts the bytes it has handed out only in its debug builds/, result["reason"])
  end

  def test_readings_allocate_nothing
    %w[glibc jemalloc tcmalloc].each do |name|
      assert_equal 0, probe(name)["objects"], "#{name}: objects made by 1,000 readings"
    end
  end

  # The ledger's and the metrics endpoint's figures: each allocator's own statistics under its own names, the bytes
  # in use among them (glibc's in two: the 50 MB buffer is a chunk of its own, hblkhd), and in_use's figure with
  # them. glibc's come from one walk of its free chunks, so its in_use is exactly the sum of its two.
  def test_a_reading_gives_in_use_and_each_allocators_own_figures
    { "glibc" => [%w[mallinfo2.uordblks mallinfo2.hblkhd], %w[mallinfo2.arena mallinfo2.fordblks mallinfo2.keepcost]],
      "jemalloc" => [%w[stats.allocated], %w[stats.active stats.resident stats.mapped stats.retained]],
      "tcmalloc" => [%w[generic.current_allocated_bytes], %w[generic.heap_size tcmalloc.pageheap_free_bytes]] }
      .each do |name, (in_use, others)|
        statistics = statistics_of(name)

        assert_empty in_use + others - statistics.keys, "#{name}: #{statistics}"
        assert_operator statistics.values_at(*in_use).sum, :>=, BUFFER, "#{name}: the 50 MB buffer is in use"
        assert_operator statistics.fetch("in_use"), :>=, BUFFER, "#{name}: in_use counts the buffer"
        next unless name == "glibc"

        assert_equal statistics.values_at(*in_use).sum, statistics.fetch("in_use"), "one walk gives both"
      end
  end

  # compare --jemalloc-conf's verification: jemalloc's own options read back in the process, as MALLOC_CONF set them
  # and as its defaults leave the rest; none under another allocator.
  def test_jemallocs_options_are_read_back_as_malloc_conf_set_them
    tuned = options_of("jemalloc", "MALLOC_CONF" => "dirty_decay_ms:1000,narenas:2,background_thread:true")
    plain = options_of("jemalloc")

    assert_equal [1000, 2, true], tuned.values_at("opt.dirty_decay_ms", "opt.narenas", "opt.background_thread")
    assert_equal [10_000, false], plain.values_at("opt.dirty_decay_ms", "opt.background_thread")
    assert_operator plain["opt.narenas"], :>, 2, "jemalloc's own default: 4 arenas per CPU"
    assert_kind_of String, plain["opt.thp"]
    assert_empty options_of("glibc")
    assert_empty options_of("tcmalloc")
  end

  # The agent writes them once, in its boot line, for the run's reader to give the row's check.
  def test_the_agent_records_jemallocs_options_in_its_boot_line
    Dir.mktmpdir do |dir|
      out = File.join(dir, "agent.jsonl")
      env = Mallard::Target::SubjectEnvironment.build(allocator_env: {}, agent: nil)
                                               .merge(installed("jemalloc").env)
                                               .merge("MALLOC_CONF" => "narenas:2", "MALLARD_AGENT_OUT" => out)
      _, err, status = Open3.capture3(env, Gem.ruby, "-I", LIB, "-rmallard/agent", "-e", "")
      assert_predicate status, :success?, err
      lines = File.readlines(out).map { |line| JSON.parse(line) }.select { |line| line["kind"] == "ruby" }

      assert_equal 2, lines.first.dig("jemalloc_options", "opt.narenas")
      assert_nil lines.last["jemalloc_options"], "once, at boot"
    end
  end

  # It is loaded into other people's processes, so it must not pull in the rest of mallard.
  def test_loads_only_itself
    assert_equal "false", probe("glibc")["whole_gem"]
  end

  # tcmalloc's symbols visible in the process (loaded RTLD_GLOBAL after start, as Ruby loads extensions) while
  # malloc stays glibc's: the allocator is the one that provides malloc, not any that answers dlsym.
  def test_an_allocator_loaded_but_not_providing_malloc_is_not_taken_for_it
    library = installed("tcmalloc").library_path
    result = probe("glibc", before: %(require "fiddle"; Fiddle.dlopen(#{library.dump})\n))

    assert_equal "glibc", result["source"]
    assert_grew_by_the_buffer(result)
  end

  def test_without_the_extension_the_reason_extconf_recorded
    with_wrapper_alone do |lib|
      File.write(File.join(lib, "mallard/malloc_stats_ext.unavailable"),
                 "dlsym(RTLD_DEFAULT, ...) is not available\n")

      assert_equal ["nil", "nil", '"dlsym(RTLD_DEFAULT, ...) is not available"'], wrapper_answers(lib)
    end
  end

  def test_without_the_extension_or_a_recorded_reason_it_says_how_to_build_it
    with_wrapper_alone do |lib|
      source, in_use, reason = wrapper_answers(lib)

      assert_equal %w[nil nil], [source, in_use]
      assert_match(%r{\A"mallard/malloc_stats_ext is not built; build it with `rake}, reason)
    end
  end

  private

  def installed(name)
    allocator = CATALOG.fetch(name)
    assert_predicate allocator, :available?, "#{name} must be installed for this test: #{allocator.unavailable_reason}"
    allocator
  end

  def probe(name, before: "")
    env = Mallard::Target::SubjectEnvironment.build(allocator_env: {}, agent: nil).merge(installed(name).env)
    out, err, status = Timeout.timeout(Processes::TEST_TIMEOUT) do
      Open3.capture3(env, Gem.ruby, "-I", LIB, "-e", before + PROBE)
    end
    assert_predicate status, :success?, err
    parse(out)
  end

  STATISTICS = <<~RUBY.freeze
    require "mallard/agent/malloc_stats"
    kept = "x" * #{BUFFER}
    in_use, statistics = Mallard::Agent::MallocStats.reading
    statistics.merge("in_use" => in_use).each { |name, value| puts [name, value].join(" ") }
    kept.clear
  RUBY

  def options_of(name, more = {})
    env = Mallard::Target::SubjectEnvironment.build(allocator_env: {}, agent: nil).merge(installed(name).env)
    code = 'require "json"; require "mallard/agent/malloc_stats"; ' \
           "puts JSON.generate(Mallard::Agent::MallocStats.options)"
    out, err, status = Open3.capture3(env.merge(more), Gem.ruby, "-I", LIB, "-e", code)
    assert_predicate status, :success?, err
    JSON.parse(out)
  end

  def statistics_of(name)
    env = Mallard::Target::SubjectEnvironment.build(allocator_env: {}, agent: nil).merge(installed(name).env)
    out, err, status = Open3.capture3(env, Gem.ruby, "-I", LIB, "-e", STATISTICS)
    assert_predicate status, :success?, err
    out.lines.to_h do |line|
      name, value = line.split
      [name, Integer(value)]
    end
  end

  def parse(out)
    fields = out.lines.first.scan(/(\w+)=(\S+)/).to_h
    %w[before after objects].each { |key| fields[key] = fields.fetch(key) == "nil" ? nil : Integer(fields[key]) }
    fields.merge("reason" => out[/^reason=(.*)$/, 1].then { |text| text == "nil" ? nil : text.undump })
  end

  def assert_grew_by_the_buffer(result)
    grown = result["after"] - result["before"]

    assert_in_delta BUFFER, grown, BUFFER * 0.1, "in_use #{result['before']} -> #{result['after']}"
  end

  # The wrapper copied into a lib directory of its own, with no extension beside it.
  def with_wrapper_alone
    Dir.mktmpdir do |lib|
      FileUtils.mkdir_p(File.join(lib, "mallard/agent"))
      FileUtils.cp(File.join(LIB, "mallard/agent/malloc_stats.rb"), File.join(lib, "mallard/agent"))
      %w[extension_loader.rb extension_abi.rb version.rb].each do |file|
        FileUtils.cp(File.join(LIB, "mallard", file), File.join(lib, "mallard"))
      end
      yield lib
    end
  end

  # [source, in_use, unavailable_reason], each inspected; stderr must stay empty (the caller reports).
  def wrapper_answers(lib)
    code = 'require "mallard/agent/malloc_stats"; s = Mallard::Agent::MallocStats; ' \
           "puts [s.source, s.in_use, s.unavailable_reason].map(&:inspect)"
    out, err, status = Open3.capture3({ "RUBYOPT" => nil, "RUBYLIB" => nil }, Gem.ruby, "--disable-gems",
                                      "-I", lib, "-e", code)

    assert_predicate status, :success?, err
    assert_empty err
    out.lines(chomp: true)
  end
end

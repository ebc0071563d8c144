# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "tmpdir"

# mallard/trim in real Ruby processes: the same workload with and without it.
class TrimTest < Minitest::Test
  GLIBC_TRIM = Mallard::Allocators::Catalog.default.fetch("glibc-trim")
  GLIBC = Mallard::Allocators::Catalog.default.fetch("glibc")
  FORCED_MAJOR_GCS = 3

  # Four threads (four glibc arenas) each allocate ~50 MB of 1-3 KB strings, too long to be embedded
  # in a Ruby slot on any Ruby, and keep every 64th: the survivors pin each arena's top, so glibc
  # can hand back none of the freed space by itself. Then three forced major GCs.
  WORKLOAD = <<~RUBY.freeze
    rss_kb = -> { File.read("/proc/self/status")[/VmRSS:\\s+(\\d+)/, 1].to_i }
    kept = 4.times.map do
      Thread.new do
        strings = Array.new(25_000) { |i| "x" * (1000 + (i % 7) * 300) }
        strings.each_slice(64).map(&:first)
      end
    end.map(&:value)
    trims_before = defined?(Mallard::Trim) ? Mallard::Trim.trims : 0
    #{FORCED_MAJOR_GCS}.times { GC.start }
    trims = defined?(Mallard::Trim) ? Mallard::Trim.trims - trims_before : 0
    puts "trims=\#{trims} rss_kb=\#{rss_kb.call} kept=\#{kept.sum(&:size)} whole_gem=\#{!defined?(Mallard::CLI).nil?}"
  RUBY

  def setup
    skip "glibc-trim is unavailable here: #{GLIBC_TRIM.unavailable_reason}" unless GLIBC_TRIM.available?
  end

  def test_trims_after_every_forced_major_gc
    result = run_workload(trim: true)

    assert_operator result["trims"], :>=, FORCED_MAJOR_GCS
  end

  # Measured on Debian 12 (Ruby 3.1, glibc 2.36): ~205 MB without, ~28 MB with. Half of the 200 MB
  # allocated is a margin no run came near.
  def test_hands_freed_memory_back_where_plain_glibc_keeps_it
    untrimmed = run_workload(trim: false)
    trimmed = run_workload(trim: true)

    assert_equal 0, untrimmed["trims"]
    assert_operator trimmed["rss_kb"], :<, untrimmed["rss_kb"] - 100_000,
                    "RSS with trim #{trimmed['rss_kb']} KB, without #{untrimmed['rss_kb']} KB"
  end

  # It is loaded into other people's processes, so it must not pull in the rest of mallard.
  def test_loads_only_itself
    assert_equal "false", run_workload(trim: true)["whole_gem"]
  end

  def test_without_the_extension_it_warns_once_and_changes_nothing
    Dir.mktmpdir do |lib|
      FileUtils.mkdir_p(File.join(lib, "mallard"))
      sources = %w[trim.rb trim extension_loader.rb extension_abi.rb version.rb]
                .map { |name| File.join(Processes::ROOT, "lib/mallard", name) }
      FileUtils.cp_r(sources, File.join(lib, "mallard"))
      code = 'require "mallard/trim"; Mallard::Trim.start; p [Mallard::Trim.installed?, Mallard::Trim.trims]'
      out, err, status = Open3.capture3({ "RUBYOPT" => nil, "RUBYLIB" => nil }, Gem.ruby, "--disable-gems",
                                        "-I", lib, "-e", code)

      assert_predicate status, :success?, err
      assert_equal "[false, 0]\n", out
      assert_equal 1, err.scan("mallard/trim: the C extension is not built").size, err
      assert_match(/malloc_trim after GC is off/, err)
    end
  end

  private

  def run_workload(trim:)
    config = trim ? GLIBC_TRIM : GLIBC
    env = config.env.merge("RUBYOPT" => config.rubyopt(nil), "RUBYLIB" => nil)
    out, err, status = Timeout.timeout(Processes::TEST_TIMEOUT) { Open3.capture3(env, Gem.ruby, "-e", WORKLOAD) }
    assert_predicate status, :success?, err
    fields = out.scan(/(\w+)=(\S+)/).to_h

    fields.merge("trims" => Integer(fields.fetch("trims")), "rss_kb" => Integer(fields.fetch("rss_kb")))
  end
end

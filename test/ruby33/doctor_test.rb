# frozen_string_literal: true

require "test_helper"
require "json"
require_relative "../support/rubies"

# `mallard doctor` on processes of the Rubies built here: the jemalloc-linked one is jemalloc "linked" (as Fullstaq
# Ruby is), the stock one glibc's own malloc; the Ruby is read from the process itself.
class Ruby33DoctorTest < Minitest::Test
  include Processes

  # As test/integration/doctor_test.rb sets them for Debian's 3.1.
  GC_SETTINGS = { "RUBY_GC_HEAP_INIT_SLOTS" => "2000000", "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1",
                  "RUBY_GC_HEAP_FREE_SLOTS" => "-5" }.freeze

  def test_a_jemalloc_linked_ruby_is_jemalloc_linked
    report = doctor_of(Rubies::JEMALLOC)

    assert_equal %w[jemalloc linked], [report.dig("allocator", "name"), report.dig("allocator", "via")]
    assert_equal "3.3.8", report.dig("ruby", "version")
  end

  def test_the_stock_ruby_uses_glibcs_malloc
    report = doctor_of(Rubies::STOCK)

    assert_equal %w[glibc default], [report.dig("allocator", "name"), report.dig("allocator", "via")]
  end

  # 3.3 reads RUBY_GC_HEAP_INIT_SLOTS no more (it warns, under -W, that it is deprecated): the doctor asks the
  # process's own Ruby, so it says so and names the per-pool variables 3.3 reads instead.
  def test_gc_settings_as_ruby_3_3_takes_them
    report = doctor_of(Rubies::STOCK, env: GC_SETTINGS)
    settings = report["settings"].to_h { |setting| [setting["name"], setting] }
    init_slots = report["findings"].find { |finding| finding["message"].start_with?("RUBY_GC_HEAP_INIT_SLOTS=") }

    assert_equal({ "RUBY_GC_HEAP_INIT_SLOTS" => "deprecated", "RUBY_GC_HEAP_GROWTH_FACTOR" => "read",
                   "RUBY_GC_HEAP_FREE_SLOTS" => "ignored", "RUBY_YJIT_ENABLE" => "read" },
                 settings.transform_values { |setting| setting["status"] })
    assert_equal "RUBY_GC_HEAP_%d_INIT_SLOTS", settings.dig("RUBY_GC_HEAP_INIT_SLOTS", "instead")
    assert_equal "it must be greater than 0", settings.dig("RUBY_GC_HEAP_FREE_SLOTS", "reason")
    assert_equal "on", settings.dig("RUBY_YJIT_ENABLE", "read")
    assert_equal "warning", init_slots["level"]
    assert_match(/RUBY_GC_HEAP_0_INIT_SLOTS … RUBY_GC_HEAP_4_INIT_SLOTS/, init_slots["advice"])
  end

  private

  def doctor_of(ruby, env: {})
    reader, writer = IO.pipe
    pid = Process.spawn(Rubies.env(ruby).merge(env), Rubies.path(ruby), "-e", "puts :ready; $stdout.flush; sleep",
                        out: writer, err: File::NULL)
    writer.close
    Timeout.timeout(20) { reader.gets }
    out, err, status = mallard("doctor", pid, "--json")
    assert_includes [0, 1], status.exitstatus, err
    JSON.parse(out)
  ensure
    reader&.close
    stop_process(pid) if pid
  end
end

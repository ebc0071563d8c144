# frozen_string_literal: true

require "test_helper"
require "json"
require_relative "../support/rubies"

# `mallard doctor` on processes of the Rubies built here: the jemalloc-linked one is jemalloc "linked" (as Fullstaq
# Ruby is), the stock one glibc's own malloc; the Ruby is read from the process itself.
class Ruby33DoctorTest < Minitest::Test
  include Processes

  def test_a_jemalloc_linked_ruby_is_jemalloc_linked
    report = doctor_of(Rubies::JEMALLOC)

    assert_equal %w[jemalloc linked], [report.dig("allocator", "name"), report.dig("allocator", "via")]
    assert_equal "3.3.8", report.dig("ruby", "version")
  end

  def test_the_stock_ruby_uses_glibcs_malloc
    report = doctor_of(Rubies::STOCK)

    assert_equal %w[glibc default], [report.dig("allocator", "name"), report.dig("allocator", "via")]
  end

  private

  def doctor_of(ruby)
    reader, writer = IO.pipe
    pid = Process.spawn(Rubies.env(ruby), Rubies.path(ruby), "-e", "puts :ready; $stdout.flush; sleep",
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

# frozen_string_literal: true

require "test_helper"
require "cgi"
require_relative "stored_summaries"

# The words of a boot (BootSentences) for what the probe decided about malloc: read only for the total after a slow
# reading, said in the terminal's Method and the HTML's malloc row; an older summary.json's note, as stored.
class BootSentencesTest < Minitest::Test
  include StoredSummaries

  STOPPED = { "repeats" => 2, "of" => 5, "first" => "one reading took 12.5 ms" }.freeze
  SAID = "malloc was not read per require after the first slow reading in 2 of 5 repeats (one reading took 12.5 ms; " \
         "glibc's mallinfo2 walks every free chunk), only for the total"

  def test_malloc_read_only_for_the_total_is_said
    summary = boot("malloc_stopped" => STOPPED)

    assert_equal SAID, Mallard::Report::BootSentences.new(summary).malloc_stopped
    assert_includes Mallard::Report::BootSentences.new(summary).all, SAID
    assert_includes terminal(summary), SAID
    assert_includes html(summary), "glibc: #{SAID}"
  end

  def test_a_boot_read_throughout_says_nothing_of_it
    assert_nil Mallard::Report::BootSentences.new(boot).malloc_stopped
    refute_includes terminal(boot), "slow reading"
  end

  def test_an_older_summarys_note_is_shown_as_stored
    summary = boot("malloc_note" => SAID)

    assert_nil Mallard::Report::BootSentences.new(summary).malloc_stopped
    assert_includes html(summary), "glibc: #{SAID}"
  end

  private

  def boot(changes = {}) = Mallard::Summary::Boot.from_h(stored("boot/summary.json").merge(changes))

  def terminal(summary) = StringIO.new.tap { |io| Mallard::Report::BootTerminal.new(summary).render(io) }.string

  def html(summary)
    page = StringIO.new.tap { |io| Mallard::Report::Html.new(summary, meta: stored_meta("boot")).render(io) }.string
    CGI.unescapeHTML(page.gsub(/<[^>]*>/, " ")).split.join(" ")
  end
end

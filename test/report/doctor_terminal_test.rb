# frozen_string_literal: true

require "test_helper"

class DoctorTerminalTest < Minitest::Test
  include Diagnoses

  def test_shows_the_facts_a_person_looks_for
    text = render(diagnosis(env: { "MALLOC_ARENA_MAX" => "2", "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1" }))

    assert_match(%r{PID 4242: puma -C config/puma.rb}, text)
    assert_match(/Ruby\s+ruby 3\.1\.2, YJIT not requested/, text)
    assert_match(/Allocator\s+glibc — the C library's default/, text)
    assert_match(/Memory\s+RSS 200\.0 MiB · PSS 146\.5 MiB · USS 136\.7 MiB · SWAP 0\.0 MiB/, text)
    assert_match(/MALLOC_CONF=\(unset\)/, text)
    assert_match(/RUBY_GC_HEAP_GROWTH_FACTOR=1\.1/, text)
    assert_match(/No findings\./, text)
  end

  def test_findings_carry_their_advice
    subject = diagnosis(threads: 9)
    subject.findings = findings_for(subject)
    text = render(subject)

    assert_match(/! warning glibc malloc with 9 threads/, text)
    assert_match(/→ glibc may create up to 16 arenas/, text)
  end

  # Command line and environment are the process's own bytes: shown, escaped, each on its one line.
  def test_what_the_process_holds_is_printed_inert
    text = render(diagnosis(command: ["ruby", "-e", "\e]0;title\a\e[2J\nx"], env: { "MALLOC_CONF" => "a\nb\x00" }))

    assert_match(/PID 4242: ruby -e \\x0Ax$/, text)
    assert_match(/^    MALLOC_CONF=a\\x0Ab\\x00$/, text)
    refute_match(/[\x00-\x08\x0B-\x1F\x7F]/, text)
  end

  def test_plain_output_has_no_escape_codes
    refute_includes render(diagnosis), "\e["
  end

  def test_colour_on_a_terminal_unless_no_color
    tty = StringIO.new
    def tty.tty? = true

    assert_instance_of Mallard::Report::Color, Mallard::Report::Color.for(tty, env: {})
    assert_instance_of Mallard::Report::Color::Plain, Mallard::Report::Color.for(tty, env: { "NO_COLOR" => "1" })
  end

  private

  def render(diagnosis)
    StringIO.new.tap { |io| Mallard::Report::DoctorTerminal.new(diagnosis).render(io) }.string
  end
end

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

  def test_settings_show_as_the_processs_ruby_took_them
    text = render(diagnosis(settings: [
                              check("RUBY_GC_HEAP_GROWTH_FACTOR", "1.1", "read", read: "1.100000", default: "1.800000"),
                              check("RUBY_GC_HEAP_INIT_SLOTS", "2000000", "deprecated",
                                    instead: "RUBY_GC_HEAP_%d_INIT_SLOTS"),
                              check("RUBY_GC_HEAP_FREE_SLOTS", "-5", "ignored", reason: "it must be greater than 0"),
                              check("--yjit", nil, "read", read: "on")
                            ]))

    assert_match(/^  Settings, as ruby 3\.1\.2 takes them$/, text)
    assert_match(/^    RUBY_GC_HEAP_GROWTH_FACTOR=1\.1 +read: 1\.100000 \(default 1\.800000\)$/, text)
    assert_match(/^    RUBY_GC_HEAP_INIT_SLOTS=2000000 +not read: deprecated for RUBY_GC_HEAP_%d_INIT_SLOTS$/, text)
    assert_match(/^    RUBY_GC_HEAP_FREE_SLOTS=-5 +ignored: it must be greater than 0$/, text)
    assert_match(/^    --yjit +read: YJIT on$/, text)
  end

  def test_settings_not_checked_say_why
    text = render(diagnosis(settings_unchecked: "/opt/app/server is no Ruby mallard can start to ask"))

    assert_match(%r{^  Settings    not checked: /opt/app/server is no Ruby mallard can start to ask$}, text)
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

  def test_with_a_command_says_what_was_started_what_was_read_and_when
    text = render(diagnosis(started: { pid: 4240, command: %w[runuser -u www-data -- puma] },
                            other_rubies: [{ pid: 4243, command: ["puma: cluster worker 0: 4242"] }],
                            looked: { after_s: 3.4, settled: true, url: "http://127.0.0.1:3000/up" }))

    assert_match(/^  Started     runuser -u www-data -- puma \(PID 4240\) → read PID 4242, the Ruby process it/, text)
    assert_match(/^  Also Ruby   PID 4243 \(puma: cluster worker 0: 4242\)$/, text)
    assert_match(%r{^  Looked      after 3\.4 s, once http://127\.0\.0\.1:3000/up answered and it had settled$}, text)
  end

  def test_a_process_read_before_it_settled_says_so
    text = render(diagnosis(started: { pid: 4242, command: %w[puma] }, looked: { after_s: 30.0, settled: false }))

    refute_match(/Started/, text, "CMD's own process was read: nothing to explain")
    assert_match(/^  Looked      after 30\.0 s \(--wait\), before it had settled: figures may be mid-boot$/, text)
  end

  def test_a_master_shows_its_tree_and_each_processs_part
    lines = render(diagnosis(tree: puma_tree(shared_kb: 61_440))).lines.map(&:chomp)

    assert_includes lines, "  Tree        puma with 2 under it, 2 of them workers · " \
                           "summed PSS 109.3 MiB: shared 86.4 MiB, apart (USS) 22.9 MiB"
    assert_includes lines, "    PID 4242    master      RSS 72.0 MiB · PSS 29.3 MiB · USS 2.9 MiB  " \
                           "shared 95.9% of its RSS"
    assert_includes lines, "    PID 4244    worker 1    RSS 70.0 MiB · PSS 40.0 MiB · USS 10.0 MiB  " \
                           "shared 85.7% of its RSS  5 pool threads"
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

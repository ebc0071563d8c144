# frozen_string_literal: true

require "test_helper"

# A setting that is code: which action a comparison's rows can run, where mallard can put it, and how a run's process
# bears it out.
class AfterBootTest < Minitest::Test
  AfterBoot = Mallard::Allocators::AfterBoot
  APPS = File.expand_path("../fixtures/apps", __dir__)
  Row = Struct.new(:label, :allocator)

  def rack_app = Mallard::Target::RackApp.new(dir: File.join(APPS, "hello"))
  def server = Mallard::Target::ServerCommand.new(argv: %w[ruby server.rb {port}], url: "http://127.0.0.1:{port}/")
  def ruby(version) = Mallard::Target::SubjectRuby.new(version, "ruby #{version}", "/opt/ruby/bin/ruby", "", "yes")
  def config(text) = Mallard::Allocators::ConfigOption.parse(text, Mallard::Allocators::Catalog.default)

  def test_the_action_is_split_from_the_environment
    assert_equal [{ "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1" }, "warmup"],
                 AfterBoot.split("RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1", "after_boot" => "warmup")
    assert_equal [{}, nil], AfterBoot.split({})
  end

  # Process.warmup came with 3.3: crossed with a Ruby before it, every row gets what that one can run too.
  def test_warmup_where_every_ruby_has_it_else_compact_and_none_without_a_boot_to_put_it_in
    assert_equal "warmup", AfterBoot.available(rack_app, [ruby("3.3.8"), ruby("3.4.1")])
    assert_equal "compact", AfterBoot.available(rack_app, [ruby("3.3.8"), ruby("3.1.2")])
    assert_nil AfterBoot.available(server, [ruby("3.3.8")])
  end

  def test_a_target_that_boots_the_app_itself_is_refused_an_action
    rows = [Row.new("plain", config("plain=RUBY_GC_HEAP_GROWTH_FACTOR=1.1")),
            Row.new("warm", config("warm=after_boot=warmup"))]
    error = assert_raises(Mallard::UsageError) { AfterBoot.check_target(rows, server) }

    assert_match(/\Awarm: after_boot=warmup — mallard runs a line after boot only in a Rack app .* this command target/,
                 error.message)
    assert_nil AfterBoot.check_target(rows, rack_app)
    assert_nil AfterBoot.check_target(rows.first(1), server), "rows without an action need no boot"
  end

  # Both actions compact the heap in the process that loaded the app: GC.stat(:compact_count) at its end says so.
  def test_a_run_bears_the_action_out_by_its_compactions
    checks = [Mallard::Summary::SettingCheck.new(name: "after_boot", value: "warmup", status: "read")]

    confirmed, not_run = AfterBoot.confirm(checks, { "compact_count_at_end" => 1 })
    assert_equal [{ "compact_count" => 1 }, []], [confirmed.first.inside, not_run]
    _, not_run = AfterBoot.confirm(checks, { "compact_count_at_end" => 0 })
    assert_equal ["after_boot=warmup did not run in the app: no process had compacted its heap"], not_run
    assert_equal [checks, []], AfterBoot.confirm(checks, {}), "a run without the agent cannot say"
  end

  def test_compactions_at_the_end_are_the_most_any_process_had
    states = [state("boot", 1, 0), state("end", 2, 1), state("end", 1, 0)]

    assert_equal 1, Mallard::Analysis::RubyFigures.inside(states)["compact_count_at_end"]
    assert_nil Mallard::Analysis::RubyFigures.inside([state("end", 1, nil)])["compact_count_at_end"]
  end

  # A tree killed at its stop writes no end: its workers' forks, after the master's warmup, still carry the count.
  def test_a_worker_that_never_ended_counts_the_compactions_it_forked_with
    states = [state("boot", 1, 0), state("fork", 2, 1), state("fork", 3, 1)]

    assert_equal 1, Mallard::Analysis::RubyFigures.inside(states)["compact_count_at_end"]
    ended = [state("boot", 1, 0), state("fork", 2, 0), state("end", 2, 2)]
    assert_equal 2, Mallard::Analysis::RubyFigures.inside(ended)["compact_count_at_end"], "its end, where it wrote one"
  end

  private

  def state(at, pid, compactions)
    Mallard::Run::RubyState.new(t: 0, pid: pid, at: at, version: "3.3.8", yjit: false, compact_count: compactions)
  end
end

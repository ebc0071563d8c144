# frozen_string_literal: true

require "test_helper"
require "json"
require "set"
require "tmpdir"
require_relative "../support/heap_dumps"

# `mallard heap` end to end: a real Puma app under real wrk load, dumps from forked copies of it, and the three-dump
# method checked against the classic one computed here, by addresses, with JSON.parse on every line.
class HeapIntegrationTest < Minitest::Test
  include Processes
  include HeapDumps

  APPS = File.expand_path("../fixtures/apps", __dir__)
  KEEPER = File.join(APPS, "keeper", "config.ru")

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-heap-test")
    @tag = new_tag("heap")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_the_line_that_keeps_memory_is_the_top_site_and_its_bytes_match_the_classic_method
    summary, out_dir = heap("keeper")
    top = summary["sites"].first

    assert_equal "#{KEEPER}:#{kept_line}", top["site"]
    assert_equal %w[String app], top.values_at("class", "gem")
    assert top["significant"]
    assert_held_by_kept top["path"]
    assert_equal [top], summary["sites"].select { |site| site["significant"] }, "the garbage is kept nowhere"
    assert_in_delta classic_retained_bytes(summary["dumps"].map { |dump| dump["path"] }, KEEPER, kept_line),
                    top["bytes"], top["bytes"] * 0.1
    assert_dumps_private(summary, out_dir)
    assert_answered_while_dumped summary["latency"]
  end

  def test_a_bounded_app_keeps_nothing_significant
    summary, = heap("stable")

    assert_equal "complete", summary["status"]
    assert_empty(summary["sites"].select { |site| site["significant"] })
  end

  def test_heap_diff_reads_dumps_one_has_and_refuses_what_it_cannot_compare
    dumps = make_dumps(File.join(@tmp, "dumps-true"), traced: true)
    out, err, status = mallard("heap", "diff", *dumps, "--json")
    assert_equal 0, status.exitstatus, err
    assert_made_top JSON.parse(out)["sites"].first

    _out, err, status = mallard("heap", "diff", *dumps.first(2))
    assert_equal 64, status.exitstatus
    assert_match(/give three dumps/, err)
    _out, err, status = mallard("heap", "diff", *make_dumps(File.join(@tmp, "dumps-false"), traced: false))
    assert_equal 65, status.exitstatus
    assert_match(/no allocation info/, err)
  end

  private

  def heap(app)
    out_dir = File.join(@tmp, "run-#{app}")
    out, err, status = mallard("heap", File.join(APPS, app), "--duration", "10", "--json", "--out", out_dir,
                               env: { "MALLARD_TEST_TAG" => @tag })
    assert_equal 0, status.exitstatus, err
    assert eventually(5) { processes_tagged(@tag).empty? }, -> { "left: #{command_lines(processes_tagged(@tag))}" }
    [JSON.parse(out), out_dir]
  end

  # mallard's own requests while a dump was taken, and outside the dumps: the baseline.
  def assert_answered_while_dumped(latency)
    %w[during outside].each do |part|
      assert_operator latency.dig(part, "answered"), :>, 0, "the app answered mallard #{part} the dumps"
      assert_equal 0, latency.dig(part, "errors")
    end
  end

  def assert_held_by_kept(path)
    assert_match(/\AGC root: /, path.first)
    assert_includes path, "Array (#{KEEPER}:5)", "KEPT, the array that holds them"
  end

  def kept_line
    File.readlines(KEEPER).index { |line| line.include?("{ KEPT << (") } + 1
  end

  # The classic three-dump method, by addresses: objects from the site in B that A did not hold, still in C.
  def classic_retained_bytes(dumps, file, line)
    a, b = dumps.first(2).map { |dump| site_objects(dump, file, line).keys.to_set }
    born = b - a
    site_objects(dumps[2], file, line).sum { |address, memsize| born.include?(address) ? memsize : 0 }
  end

  def site_objects(dump, file, line)
    File.foreach(dump).each_with_object({}) do |json, objects|
      object = JSON.parse(json)
      objects[object["address"]] = object["memsize"] if object["file"] == file && object["line"] == line
    end
  end

  # Dumps hold the app's strings; mallard's own files hold sizes and sites only.
  def assert_dumps_private(summary, out_dir)
    summary["dumps"].each { |dump| assert_equal 0o600, File.stat(dump["path"]).mode & 0o777 }
    Dir.glob(File.join(out_dir, "*")).select { |path| File.file?(path) }.each do |path|
      refute_match(/secret-\d+-kkk/, File.binread(path), "#{path} holds a value from the app")
    end
  end

  # The 2,000 strings made between A and B (the 500 after B are not in the window), held by $kept.
  def assert_made_top(top)
    assert top["site"].end_with?("/made.rb:3"), top["site"]
    assert_in_delta 2000, top["count"], 2
    assert_equal "GC root: global_tbl", top["path"].first
    assert_match(%r{\AArray \(.*/made.rb:1\)\z}, top["path"][-2], "$kept, made on line 1")
  end
end

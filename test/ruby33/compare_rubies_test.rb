# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/rubies"

# compare --rubies: stock 3.3 and jemalloc-linked 3.3 crossed with configurations, each row verified from the
# subject's own maps; glibc asked of the jemalloc-linked Ruby is refused, with the reason, before it runs.
class Ruby33CompareRubiesTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-ruby33-compare")
    Rubies.extensions(Rubies::STOCK) # built once, outside the runs' time limits
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_rubies_crossed_with_allocators
    rows = compare_rubies.to_h { |row| [row["name"], row] }

    assert_equal %w[linked/glibc linked/jemalloc stock/glibc stock/jemalloc], rows.keys.sort
    assert_match(/linked with jemalloc: it cannot run glibc/, rows["linked/glibc"]["failed"])
    %w[stock/glibc stock/jemalloc linked/jemalloc].each { |name| assert rows[name]["verified"], rows[name].inspect }
    # Linked and preloaded at once (the same libjemalloc): detection names the preload, which wins symbol lookup.
    assert_equal "jemalloc", allocator_of(rows["linked/jemalloc"])["allocator"]
    assert_equal %w[glibc default], allocator_of(rows["stock/glibc"]).values_at("allocator", "via")
    assert_ruby_change(rows)
  end

  # --yjit on,off: YJIT's memory against its speed, each row's YJIT read from inside the app.
  def test_yjit_on_and_off_as_rows
    rows = compare_json("--ruby", Rubies.path(Rubies::STOCK), "--yjit", "on,off", "--allocators", "glibc")
           .to_h { |row| [row["name"], row] }

    assert_equal %w[glibc/yjit-off glibc/yjit-on], rows.keys.sort
    rows.each_value { |row| assert row["verified"], row.inspect }
    on, off = %w[on off].map { |mode| subject_ruby_of(rows["glibc/yjit-#{mode}"]) }

    assert_equal [true, false], [on["yjit_at_end"], off["yjit_at_end"]]
    assert_equal %w[on off], [rows["glibc/yjit-on"]["yjit"], rows["glibc/yjit-off"]["yjit"]]
    assert_operator on["yjit_code_region_bytes"], :>, 0
    assert_nil off["yjit_code_region_bytes"]
  end

  def test_bad_rubies_are_refused_before_anything_starts
    [["x", /NAME=PATH/], ["a=/etc/passwd", %r{--ruby /etc/passwd}],
     ["a=#{Rubies.path(Rubies::STOCK)},a=#{Rubies.path(Rubies::STOCK)}", /twice/]].each do |list, message|
      _, err, status = mallard("compare", "--rubies", list, File.join(APPS, "hello"))

      assert_equal 64, status.exitstatus, err
      assert_match message, err
    end
  end

  private

  # The baseline's Ruby is stock: the linked Ruby's rows are a Ruby change to deploy, with that Ruby's facts.
  def assert_ruby_change(rows)
    assert_equal [nil, 4], [rows["stock/glibc"]["ruby"]["allocator_linked"], rows["linked/jemalloc"]["deploy_effort"]]
    assert_equal %w[3.3.8 jemalloc], rows["linked/jemalloc"]["ruby"].values_at("version", "allocator_linked")
    assert_equal 3, rows["stock/jemalloc"]["deploy_effort"]
  end

  def compare_rubies
    Rubies.extensions(Rubies::JEMALLOC)
    rubies = "stock=#{Rubies.path(Rubies::STOCK)},linked=#{Rubies.path(Rubies::JEMALLOC)}"
    compare_json("--rubies", rubies, "--allocators", "glibc,jemalloc")
  end

  # @return [Array<Hash>] the summary's rows
  def compare_json(*args)
    out, err, status = Timeout.timeout(240) do
      Open3.capture3(Gem.ruby, EXE, "compare", "--json", "--out", File.join(@tmp, "run"), *args, "--repeat", "1",
                     "--duration", "3", "--concurrency", "2", File.join(APPS, "hello"))
    end
    assert_includes [0, 1], status.exitstatus, err
    JSON.parse(out)["rows"]
  end

  # YJIT as the app said from inside: in the row's run with the agent (its counted runs carry none).
  def subject_ruby_of(row)
    JSON.parse(File.read(File.join(row["instrumented_runs"].first["run_dir"], "meta.json")))["subject_ruby"]
  end

  # The allocator the row's run verified (meta.json's phases.diagnosis).
  def allocator_of(row)
    meta = JSON.parse(File.read(File.join(row["runs"].first["run_dir"], "meta.json")))
    meta.dig("phases", "diagnosis")
  end
end

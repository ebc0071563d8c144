# frozen_string_literal: true

require "test_helper"

# How much a deployment must change to run a compare row: its allocator's, raised by another Ruby, YJIT turned on or
# another Puma shape.
class DeployEffortTest < Minitest::Test
  DeployEffort = Mallard::Allocators::DeployEffort
  Row = Struct.new(:allocator, :ruby, :yjit, :shape)
  Ruby = Struct.new(:path)

  def setup
    finder = Mallard::Allocators::LibraryFinder.new(ldconfig_listing: "", dirs: [])
    @catalog = Mallard::Allocators::Catalog.new(finder: finder)
  end

  def test_each_allocator_by_what_it_needs_installed_or_set
    efforts = %w[glibc glibc-arena2 glibc-trim jemalloc].to_h { |name| [name, @catalog.fetch(name).deploy_effort] }

    assert_equal({ "glibc" => DeployEffort::NOTHING, "glibc-arena2" => DeployEffort::ENVIRONMENT,
                   "glibc-trim" => DeployEffort::APP_CODE, "jemalloc" => DeployEffort::LIBRARY }, efforts)
  end

  def test_another_ruby_is_the_most_and_yjit_turned_on_a_variable
    glibc = @catalog.fetch("glibc")
    baseline = Row.new(glibc, Ruby.new("/usr/bin/ruby"), "off")

    assert_equal DeployEffort::NOTHING,
                 DeployEffort.of(Row.new(glibc, Ruby.new("/usr/bin/ruby"), "off"), baseline: baseline)
    assert_equal DeployEffort::RUBY_CHANGE,
                 DeployEffort.of(Row.new(glibc, Ruby.new("/opt/ruby"), nil), baseline: baseline)
    assert_equal DeployEffort::ENVIRONMENT, DeployEffort.of(Row.new(glibc, nil, "on"), baseline: baseline)
    assert_equal DeployEffort::LIBRARY,
                 DeployEffort.of(Row.new(@catalog.fetch("jemalloc"), nil, "on"), baseline: baseline)
    assert_equal DeployEffort::NOTHING, DeployEffort.of(Row.new(glibc, nil, "on"), baseline: Row.new(glibc, nil, "on"))
  end

  # A code region sized is a variable (RUBYOPT's option), against off or another size alike.
  def test_a_yjit_size_is_a_variable
    glibc = @catalog.fetch("glibc")
    effort = ->(mode, baseline) { DeployEffort.of(Row.new(glibc, nil, mode), baseline: Row.new(glibc, nil, baseline)) }

    assert_equal [DeployEffort::ENVIRONMENT] * 2, [effort.call("16", "off"), effort.call("16", "on")]
    assert_equal DeployEffort::NOTHING, effort.call("off", "16")
  end

  # Workers and threads are variables (WEB_CONCURRENCY, RAILS_MAX_THREADS); preloading or not a line of config/puma.rb.
  def test_another_shape_is_a_variable_and_preloading_a_line_of_code
    glibc = @catalog.fetch("glibc")
    shape = ->(text) { Row.new(glibc, nil, nil, Mallard::PumaShape.parse(text)) }
    effort = ->(row, baseline) { DeployEffort.of(shape.call(row), baseline: shape.call(baseline)) }

    assert_equal DeployEffort::NOTHING, effort.call("2x5", "2x5")
    assert_equal DeployEffort::ENVIRONMENT, effort.call("2x5", "1x5")
    assert_equal DeployEffort::APP_CODE, effort.call("2x5-nopreload", "1x5")
    assert_equal DeployEffort::APP_CODE, effort.call("2x5", "0x5")
  end
end

# frozen_string_literal: true

require "test_helper"

# How much a deployment must change to run a compare row: its allocator's, raised by another Ruby or YJIT turned on.
class DeployEffortTest < Minitest::Test
  DeployEffort = Mallard::Allocators::DeployEffort
  Row = Struct.new(:allocator, :ruby, :yjit)
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
end

# frozen_string_literal: true

require "test_helper"

# Fiddle is a bundled gem from Ruby 4.0: loaded by every command, `bundle exec mallard` would fail without it in
# the bundle. So it loads only when a run pins CPUs, and the gemspec names it.
class AffinityLoadingTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)

  def test_loading_mallard_does_not_load_fiddle_until_a_run_pins
    code = 'require "mallard"; a = $LOADED_FEATURES.grep(/fiddle/).size; ' \
           "Mallard::Cpus::Affinity.with(Mallard::Cpus::Affinity.allowed) {}; " \
           "print a, ' ', $LOADED_FEATURES.grep(/fiddle/).empty?"
    out, err, status = Open3.capture3(Gem.ruby, "-I", File.join(ROOT, "lib"), "-e", code)

    assert_predicate status, :success?, err
    assert_equal "0 false", out
  end

  def test_the_gemspec_names_fiddle
    spec = Gem::Specification.load(File.join(ROOT, "mallard.gemspec"))

    assert_includes spec.runtime_dependencies.map(&:name), "fiddle"
  end
end

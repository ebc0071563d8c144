# frozen_string_literal: true

require "test_helper"

# compare --like: what the lab takes of production's conditions, and what it still differs in.
class LikeProductionTest < Minitest::Test
  Conditions = Mallard::Summary::Conditions
  PRODUCTION = Conditions.new(ruby: "3.3.8", yjit: true, cpus: 2, threads: 16, workers: 4, malloc: "jemalloc")
  LAB = Conditions.new(ruby: "3.1.2", cpus: 8, threads: 5, workers: 0, malloc: "glibc")

  def test_the_lab_takes_threads_workers_and_fewer_cpus_and_says_what_it_cannot_take
    result = like(given: [])

    assert_equal({ "threads" => 16, "workers" => 4, "cpus" => 2 }, result.applied)
    assert_equal [%w[ruby 3.1.2 3.3.8], %w[malloc glibc jemalloc]], gaps(result)
  end

  def test_what_the_command_line_set_is_kept_and_said
    result = like(given: %w[--threads --cpus --shape])

    assert_empty result.applied
    assert_equal [["ruby", "3.1.2", "3.3.8"], ["cpus", 8, 2], ["threads", 5, 16], ["workers", 0, 4],
                  %w[malloc glibc jemalloc]], gaps(result)
  end

  # A lab with fewer CPUs than production cannot give a process more: that is said, not taken.
  def test_more_cpus_in_production_than_the_lab_has_is_said
    result = like(given: [], lab: LAB.with(cpus: 1))

    refute result.applied.key?("cpus")
    assert_includes gaps(result), ["cpus", 1, 2]
  end

  private

  def like(given:, lab: LAB) = Mallard::Analysis::LikeProduction.call(PRODUCTION, lab: lab, given: given)

  def gaps(result) = result.differing.map { |gap| [gap.name, gap.lab, gap.production] }
end

# frozen_string_literal: true

require "test_helper"

# compare --like: what the lab takes of production's conditions, and what it still differs in.
class LikeProductionTest < Minitest::Test
  Conditions = Mallard::Summary::Conditions
  PRODUCTION = Conditions.new(ruby: "3.3.8", yjit: true, cpus: 2, threads: 16, workers: 4, malloc: "jemalloc")
  LAB = Conditions.new(ruby: "3.1.2", cpus: 8, threads: 5, workers: 0, malloc: "glibc")
  Share = Mallard::Summary::RequestShare
  ONE_PATH = LAB.with(mix: [Share.new(method: "GET", path: "/", share: 1.0)])
  MIXED = PRODUCTION.with(mix: [%w[GET / 0.5], %w[GET /users/:id 0.2], %w[GET /rows 0.2], %w[POST /orders 0.1]]
                                .map { |method, path, share| Share.new(method: method, path: path, share: share.to_f) })

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

  # Production's rate is not taken (a lab at it, on a host of its own, was further from the fleet than one flat out);
  # a rate the command line gave is said where it is far from production's.
  def test_production_rate_is_said_not_taken
    busy = PRODUCTION.with(rate: 135.0)

    refute like(given: [], production: busy).applied.key?("rate")
    assert_includes gaps(like(given: ["--rate"], production: busy, lab: LAB.with(rate: 1000.0))),
                    ["rate", 1000.0, 135.0]
  end

  # A lab with fewer CPUs than production cannot give a process more: that is said, not taken.
  def test_more_cpus_in_production_than_the_lab_has_is_said
    result = like(given: [], lab: LAB.with(cpus: 1))

    refute result.applied.key?("cpus")
    assert_includes gaps(result), ["cpus", 1, 2]
  end

  # The load takes production's GETs of paths it can send, made whole again, and says what it leaves; the one path
  # it cannot send (an id) is then the mix's largest difference.
  def test_the_load_takes_production_request_mix_unless_the_command_line_gave_paths
    result = like(given: [], lab: ONE_PATH, production: MIXED)

    assert_equal [["/", 0.7143], ["/rows", 0.2857]], (result.mix.map { |one| [one.path, one.share] })
    assert_equal [["id", 0.2], ["method", 0.1]], result.mix_left.map { |one| [one.reason, one.share] }.sort
    assert_equal ["mix", 0.7143, 0.5, "GET /"], result.differing.last.to_h.values

    given = like(given: ["--path"], lab: ONE_PATH, production: MIXED)
    assert_empty given.mix
    assert_equal ["mix", 1.0, 0.5, "GET /"], given.differing.last.to_h.values
  end

  # Eight trees on each of production's hosts: the lab's app runs beside seven copies of itself, unless the command
  # line said how many, or the lab's target is no app directory it can copy (then the difference is said).
  def test_a_crowded_host_is_taken_as_neighbours_where_the_lab_can_copy_its_app
    crowded = PRODUCTION.with(trees_per_host: 8)
    lab = LAB.with(trees_per_host: 1)

    assert_equal 7, like(given: [], lab: lab, production: crowded).applied["neighbours"]
    refute_includes gaps(like(given: [], lab: lab, production: crowded)).map(&:first), "trees_per_host"
    kept = like(given: ["--neighbours"], lab: lab.with(trees_per_host: 3), production: crowded)
    refute kept.applied.key?("neighbours")
    assert_includes gaps(kept), ["trees_per_host", 3, 8]
    uncopied = like(given: [], lab: lab, production: crowded, copies: false)
    refute uncopied.applied.key?("neighbours")
    assert_includes gaps(uncopied), ["trees_per_host", 1, 8]
    refute like(given: [], lab: LAB.with(trees_per_host: 2), production: crowded.with(trees_per_host: 1))
      .applied.key?("neighbours"), "a lab more crowded than production is said, not thinned"
  end

  private

  def like(given:, lab: LAB, production: PRODUCTION, copies: true)
    Mallard::Analysis::LikeProduction.call(production, lab: lab, given: given, copies: copies)
  end

  def gaps(result) = result.differing.map { |gap| [gap.name, gap.lab, gap.production] }
end

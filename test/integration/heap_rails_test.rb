# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/rails_app"

# `mallard heap` on a real Rails app (the one `rails new` makes, RailsApp), in production, at the default options:
# its root page keeps 4 KiB a request in a controller's constant. Allocation tracing slows Rails several times
# over, so the run must still complete its load and dumps, and name the controller's line — and nothing of
# mallard's own (its dumper, the fork it dumps from, the requests it times the app with).
class HeapRailsTest < Minitest::Test
  include Processes

  CONTROLLER = <<~RUBY
    # frozen_string_literal: true

    class KeepController < ApplicationController
      KEPT = [] # rubocop:disable Style/MutableConstant

      def show
        KEPT << ("kept-by-rails-" + ("r" * 4000))
        render plain: "kept \#{KEPT.size}"
      end
    end
  RUBY

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-heap-rails")
    @tag = new_tag("heap-rails")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_a_rails_app_that_keeps_memory_is_named_at_the_default_options
    app = keeping_app
    summary = heap(app)

    assert_equal ["#{app}/app/controllers/keep_controller.rb:7"],
                 summary["sites"].select { |site| site["significant"] }.map { |site| site["site"] }.uniq
    assert_equal "String", summary["sites"].first["class"]
    assert_nothing_of_mallards summary["sites"]
    assert_operator summary.dig("soak", "load", "error_pct"), :<=, 1.0, "the traced app kept up with the load"
    assert_timed_during_and_outside_the_dumps summary["latency"]
  ensure
    assert eventually(5) { processes_tagged(@tag).empty? }, -> { "left: #{command_lines(processes_tagged(@tag))}" }
  end

  private

  def heap(app)
    out, err, status = mallard("heap", app, "--json", "--out", File.join(@tmp, "run"),
                               env: { "MALLARD_TEST_TAG" => @tag, "RAILS_ENV" => "production",
                                      "SECRET_KEY_BASE" => "x" * 64 }, timeout: 240)
    assert_equal 0, status.exitstatus, "#{err}#{out[/"reason":"[^"]*"/]}"
    JSON.parse(out)
  end

  def assert_timed_during_and_outside_the_dumps(latency)
    %w[during outside].each { |part| assert_operator latency.dig(part, "answered"), :>, 0, part }
  end

  # Nothing allocated by mallard's dump fork (ActiveSupport's fork hooks) and no class left as an address.
  def assert_nothing_of_mallards(sites)
    refute(sites.any? { |site| site["class"].to_s.start_with?("Mallard::") }, "mallard's own objects")
    refute(sites.any? { |site| site["site"].include?("fork_tracker.rb") }, "ActiveSupport's hooks on mallard's fork")
    refute(sites.any? { |site| site["class"].to_s.match?(/\A0x\h+/) }, "classes are named")
  end

  # A copy of the generated app whose root page keeps memory.
  def keeping_app
    app = File.join(@tmp, "app")
    FileUtils.cp_r(RailsApp.path, app)
    File.write(File.join(app, "app/controllers/keep_controller.rb"), CONTROLLER)
    routes = File.join(app, "config/routes.rb")
    File.write(routes, File.read(routes).sub(/^end\s*\z/, "  root \"keep#show\"\nend\n"))
    app
  end
end

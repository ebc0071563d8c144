# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# Solid Queue inside Puma: the app's Puma on a free port (PORT, and --bind on mallard's own command line), refused
# before anything starts where the app's Puma config loads no Solid Queue.
class SolidQueuePumaTest < Minitest::Test
  APP = File.expand_path("../fixtures/apps/solid_queue", __dir__)

  def test_the_apps_puma_is_bound_to_the_port_it_was_given
    puma = Mallard::Target::SolidQueuePuma.new(APP, nil)
    assert_equal ["puma"], puma.argv, "the app has no Gemfile: the Ruby's own puma"

    env = puma.env(nil)
    assert_equal ["puma", "--bind", "tcp://127.0.0.1:#{env.fetch('PORT')}"], puma.argv
  end

  def test_a_command_of_the_users_gets_the_port_in_its_environment
    puma = Mallard::Target::SolidQueuePuma.new(APP, %w[bin/rails server])
    env = puma.env(nil)

    assert_equal %w[bin/rails server], puma.argv
    assert_match(/\A\d+\z/, env.fetch("PORT"))
  end

  def test_an_app_whose_puma_config_loads_no_solid_queue_is_refused
    Dir.mktmpdir do |dir|
      FileUtils.mkdir_p(File.join(dir, "config"))
      File.write(File.join(dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
      File.write(File.join(dir, "config/puma.rb"), "# plugin :solid_queue\nport 3000\n")
      error = assert_raises(Mallard::NotFound) { Mallard::Target::SolidQueuePuma.new(dir, nil) }
      assert_includes error.message, "no `plugin :solid_queue` in #{dir}/config/puma.rb"

      File.write(File.join(dir, "config/puma.rb"), "plugin :solid_queue if ENV[\"SOLID_QUEUE_IN_PUMA\"]\n")
      Mallard::Target::SolidQueuePuma.new(dir, nil)
    end
  end

  def test_the_worker_in_puma_mode_says_so
    mode = Mallard::SolidQueueMode.parse("puma")
    worker = Mallard::Target::SolidQueueWorker.new(workload: nil, dir: APP, mode: mode)

    assert_match(/\Apuma in .* \(Solid Queue, inside Puma, SOLID_QUEUE_IN_PUMA=1, /, worker.describe)
  end
end

# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# RackApp's readiness against a real Puma cluster whose workers boot 3 s apart.
class RackAppTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)
  LIB = File.expand_path("../../lib", __dir__)

  def setup
    super
    @dir = Dir.mktmpdir("mallard-rack-app")
  end

  def teardown
    @subject&.stop
    FileUtils.rm_rf(@dir)
    super
  end

  def test_a_cluster_is_up_only_once_every_worker_has_booted
    app = Mallard::Target::RackApp.new(dir: File.join(APPS, "staggered"), threads: 1, workers: 2)
    @subject = app.command(env: { "RUBYLIB" => LIB }, run_dir: Mallard::Run::Directory.new(@dir))
    waits = []
    Timeout.timeout(TEST_TIMEOUT) do
      @subject.start.wait_until_up(timeout: 30) do
        app.ready?.tap { |ready| waits << app.waiting_for unless ready }
      end
    end

    assert_equal 2, booted_workers.size, log
    assert_equal booted_workers.sort, (Mallard::Probe::ProcessTree.pids(@subject.pid) - [@subject.pid]).sort
    assert_includes waits, "#{app.url} answered, but only 1 of 2 Puma workers had booted",
                    "the first worker answered long before the second booted; ready? must have waited for it"
  end

  private

  def booted_workers
    log.scan(Mallard::Target::RackApp::WORKER_BOOTED).map { |_index, pid| Integer(pid) }
  end

  def log
    File.read(File.join(@dir, "subject.log"))
  end
end

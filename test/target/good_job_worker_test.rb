# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# A GoodJob worker as the command line names it, before anything starts: the app's own binstub and bin/rails are
# needed (the second for the store's tables), -- CMD stands in for the first, and it describes itself as Solid Queue's
# worker does, from the same Active Job worker.
class GoodJobWorkerTest < Minitest::Test
  APP = File.expand_path("../fixtures/apps/good_job", __dir__)
  WORKLOAD = File.join(APP, "workload.rb")

  def setup
    @tmp = Dir.mktmpdir("mallard-good-job-worker")
    @server = Mallard::Target::PostgresServer.new(bin_dir: @tmp, user: Mallard::Target::SubjectUser::Same)
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_the_fixture_app_is_described_with_its_store
    worker = Mallard::Target::GoodJobWorker.new(workload: WORKLOAD, server: @server, dir: APP)

    assert_equal "good_job", worker.kind
    refute worker.measurable_without_agent?
    assert_equal "bin/good_job start in #{APP} (GoodJob, jobs from workload.rb, a PostgreSQL server of mallard's own)",
                 worker.describe
  end

  def test_an_app_without_its_binstub_needs_the_command_after_the_separator
    FileUtils.mkdir_p(File.join(@tmp, "bin"))
    error = assert_raises(Mallard::NotFound) { worker(dir: @tmp) }
    assert_equal "no bin/good_job in #{@tmp}: give the worker's command after --", error.message

    error = assert_raises(Mallard::NotFound) { worker(dir: @tmp, command: %w[bundle exec good_job start]) }
    assert_match(%r{\Ano bin/rails in .*: mallard makes the run's queue database with bin/rails db:prepare},
                 error.message)

    FileUtils.touch(File.join(@tmp, "bin", "rails"))
    assert_match(/\Abundle exec good_job start in /,
                 worker(dir: @tmp, command: %w[bundle exec good_job start]).describe)
  end

  private

  def worker(**options) = Mallard::Target::GoodJobWorker.new(workload: nil, server: @server, **options)
end

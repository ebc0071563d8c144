# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# The PostgreSQL server of a GoodJob run's own: found in Debian's layout (the newest version with all it takes), run as
# the package's user when mallard is root (PostgreSQL refuses root), refused with the package to install when missing.
# One real server, up and gone again, when PostgreSQL is installed.
class PostgresServerTest < Minitest::Test
  Server = Mallard::Target::PostgresServer

  def setup
    @tmp = Dir.mktmpdir("mallard-postgres-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_the_newest_version_with_every_tool_is_used
    { "13" => Server::TOOLS, "15" => Server::TOOLS, "16" => %w[psql] }.each do |version, tools|
      bin = FileUtils.mkdir_p(File.join(@tmp, version, "bin")).first
      tools.each { |tool| FileUtils.touch(File.join(bin, tool)).then { File.chmod(0o755, File.join(bin, tool)) } }
    end

    assert_equal File.join(@tmp, "15", "bin"), Server.check_installed!(pattern: File.join(@tmp, "*", "bin"))
  end

  def test_no_postgresql_is_refused_naming_the_package
    error = assert_raises(Mallard::NotFound) { Server.check_installed!(pattern: File.join(@tmp, "*", "bin")) }

    assert_match(/PostgreSQL is not installed .*apt-get install postgresql/, error.message)
    assert_equal 66, error.exit_status # as a missing redis-server or sqlite3: before anything starts
  end

  def test_root_runs_it_as_the_packages_user_and_anyone_else_as_themselves
    assert_equal Mallard::Target::SubjectUser::Same, Server.user(euid: 1000)
    assert_equal "nobody", Server.user(euid: 0, name: "nobody").name
    error = assert_raises(Mallard::NotFound) { Server.user(euid: 0, name: "mallard-no-such-user") }
    assert_match(/PostgreSQL refuses to run as root/, error.message)
  end

  def test_a_server_answers_on_its_port_and_is_gone_with_its_cluster
    skip "PostgreSQL is not installed" unless Server.bin_dir

    server = Server.new.start(Mallard::Run::Directory.new(@tmp))
    port = Integer(server.url[%r{:(\d+)/}, 1])

    assert_equal [%w[1 mallard_jobs]], server.query("SELECT 1, current_database()")
    server.remove

    refute_path_exists server.path
    assert_raises(Errno::ECONNREFUSED) { TCPSocket.new("127.0.0.1", port).close }
  end
end

# frozen_string_literal: true

require "etc"
require "fileutils"
require "open3"
require "tmpdir"

module Mallard
  module Target
    # The PostgreSQL a GoodJob worker is measured against: a fresh cluster of the run's own (initdb, from Debian's
    # postgresql package: the newest /usr/lib/postgresql/*/bin), served by `postgres` on a free 127.0.0.1 port (no
    # Unix socket: a run directory's path can be longer than a socket's), started through the Lifeline in a process
    # group of its own like every child, so a SIGKILL of mallard ends it too, and removed with the run. Its own
    # children (checkpointer, WAL writer, backends) lead groups of their own (PostgreSQL's children call setsid) and end
    # once they see the postmaster gone: stopping the postmaster stops the server.
    #
    # PostgreSQL refuses to run as root: when mallard is root it runs as the `postgres` user the package makes, with a
    # directory given to it (SubjectUser), in the run directory when that user can reach it, else in a directory of
    # its own under the system's temporary directory. Durability is off (fsync, synchronous_commit): nothing of a run
    # outlives it, and the worker's measurement should not wait on the disk. mallard reads it from outside with
    # `psql` over TCP as the cluster's own superuser, trusted on 127.0.0.1.
    class PostgresServer
      BIN_DIRS = "/usr/lib/postgresql/*/bin"
      TOOLS = %w[initdb postgres psql].freeze
      SYSTEM_USER = "postgres"
      ROLE = "mallard"
      DATABASE = "mallard_jobs"
      BOOT_TIMEOUT = 30
      INITDB_TIMEOUT = 60
      DESCRIPTION = "a PostgreSQL server of mallard's own"
      SETTINGS = %w[listen_addresses=127.0.0.1 unix_socket_directories= fsync=off synchronous_commit=off
                    full_page_writes=off].freeze

      # A query psql could not answer.
      class Failed < Error; end

      # The newest PostgreSQL installed with all it takes, nil when there is none.
      # @return [String, nil] its bin directory
      def self.bin_dir(pattern: BIN_DIRS)
        Dir.glob(pattern).select { |dir| TOOLS.all? { |tool| File.executable?(File.join(dir, tool)) } }
           .max_by { |dir| File.basename(File.dirname(dir)).to_i }
      end

      # @return [String] the bin directory
      # @raise [NotFound] PostgreSQL is not installed, with the package that brings it
      def self.check_installed!(pattern: BIN_DIRS)
        bin_dir(pattern: pattern) or
          raise NotFound, "PostgreSQL is not installed (no #{pattern} with #{TOOLS.join(', ')}): a GoodJob " \
                          "worker runs against a PostgreSQL server of mallard's own " \
                          "(Debian/Ubuntu: apt-get install postgresql)"
      end

      # Who runs the server: PostgreSQL refuses root, so root's runs use the package's own user.
      # @raise [NotFound] mallard is root and there is no such user
      def self.user(euid: Process.euid, name: SYSTEM_USER)
        return SubjectUser::Same unless euid.zero?

        SubjectUser.new(Etc.getpwnam(name))
      rescue ArgumentError
        raise NotFound, "no #{name} user: PostgreSQL refuses to run as root, and mallard runs it as the user " \
                        "Debian's postgresql package makes (apt-get install postgresql)"
      end

      attr_reader :url, :path

      # @param bin_dir [String] where initdb, postgres and psql are
      # @param user [SubjectUser, SubjectUser::Same] who runs the server
      # @raise [NotFound] no PostgreSQL, or no user to run it as (checked before anything starts)
      def initialize(bin_dir: self.class.check_installed!, user: self.class.user)
        @bin_dir = bin_dir
        @user = user
      end

      # The cluster made, the server up and the database created.
      # @raise [SubjectFailed] initdb failed or the server did not come up, with their last lines
      def start(run_dir)
        @path = home(run_dir)
        as_server(initdb_argv, run_dir.file("initdb.log")).run!(timeout: INITDB_TIMEOUT, what: "make a cluster")
        @port = FreePort.pick
        @url = "postgres://#{ROLE}@127.0.0.1:#{@port}/#{DATABASE}"
        @process = as_server(server_argv, run_dir.file("postgres.log")).start
        @process.wait_until_up(timeout: BOOT_TIMEOUT, waiting_for: -> { "no answer at 127.0.0.1:#{@port}" }) do
          answers?
        end
        psql("postgres", "CREATE DATABASE #{DATABASE}")
        self
      end

      def env = { "DATABASE_URL" => @url }

      # @return [Array<Array<String>>] the rows, each a list of columns as text
      # @raise [Failed]
      def query(sql) = psql(DATABASE, sql)

      # Stops the server (TERM to its group: its backends end, then the postmaster) and removes the cluster.
      def remove
        @process&.stop
        FileUtils.rm_rf(@path) if @path
      end

      private

      def home(run_dir)
        path = reachable(run_dir.file("postgres")) || Dir.mktmpdir("mallard-postgres-")
        FileUtils.mkdir_p(path, mode: 0o700)
        @user.give(path)
        path
      end

      def reachable(path)
        @user.check_reach!(path)
        path
      rescue UsageError
        nil
      end

      def as_server(argv, log_path)
        Command.new(argv, env: { "LD_PRELOAD" => nil, "RUBYOPT" => nil }, log_path: log_path, chdir: @path,
                          spawn_options: @user.spawn_options)
      end

      def initdb_argv
        [tool("initdb"), "-D", data, "-U", ROLE, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync",
         "--no-instructions"]
      end

      def server_argv = [tool("postgres"), "-D", data, "-p", @port.to_s, *SETTINGS.flat_map { |each| ["-c", each] }]

      def data = File.join(@path, "data")
      def tool(name) = File.join(@bin_dir, name)

      def answers?
        psql("postgres", "SELECT 1")
        true
      rescue Failed
        false
      end

      def psql(database, sql)
        out, err, status = Open3.capture3({ "PGCONNECT_TIMEOUT" => "5" }, tool("psql"), "-X", "-q", "-A", "-t",
                                          "-F", "|", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", @port.to_s,
                                          "-U", ROLE, "-d", database, "-c", sql)
        raise Failed, "psql could not read #{database}: #{Text.scrub(err.strip)}" unless status.success?

        out.lines(chomp: true).map { |line| line.split("|", -1) }
      end
    end
  end
end

# frozen_string_literal: true

require "fileutils"
require "open3"

module Mallard
  module Target
    # The SQLite store a Solid Queue worker is measured against: a directory of the run's own (queue-store/) holding
    # fresh database files, named to the app by DATABASE_URL and QUEUE_DATABASE_URL (Rails merges them into
    # database.yml's primary and queue), and made as the app's users make theirs, by `bin/rails db:prepare`, which
    # loads the app's db/queue_schema.rb (ActiveJobWorker runs it). Removed with the run: the jobs table only grows.
    #
    # mallard reads it from outside with the sqlite3 command-line tool (mallard's own Ruby has no sqlite3 gem, and
    # must not load the app's), read-only, waiting out the worker's write locks.
    class SolidQueueStore
      EXECUTABLE = "sqlite3"
      # How long a read waits for the worker's write lock, in milliseconds.
      BUSY_MS = 2000
      DESCRIPTION = "a SQLite store of mallard's own"
      PROCESSES_TABLE = "SELECT 1 FROM sqlite_master WHERE name = 'solid_queue_processes'"

      # A query the tool could not answer.
      class Failed < Error; end

      # @raise [NotFound] sqlite3 is not installed, with the package that brings it
      def self.check_installed!
        return if SearchPath.include?(EXECUTABLE)

        raise NotFound, "#{EXECUTABLE} is not installed: mallard reads Solid Queue's database with it " \
                        "(Debian/Ubuntu: apt-get install sqlite3)"
      end

      attr_reader :path

      # @param path [String] its directory (the run's queue-store/)
      def initialize(path)
        @path = path
      end

      # DATABASE_URL for the app's primary database, QUEUE_DATABASE_URL for its queue database: an app with
      # one database keeps Solid Queue's tables in the first, a Rails 8 app in the second.
      def env
        { "DATABASE_URL" => "sqlite3:#{file('primary')}", "QUEUE_DATABASE_URL" => "sqlite3:#{file('queue')}" }
      end

      # Makes the directory, the subject's user's: `bin/rails db:prepare` makes the databases in it.
      def create(user)
        FileUtils.mkdir_p(@path)
        user.give(@path)
        self
      end

      # @return [Array<Array<String>>] the rows, each a list of columns as text
      # @raise [Failed]
      def query(sql) = read(@tables ||= tables_file, sql)

      def remove
        FileUtils.rm_rf(@path)
      end

      private

      def file(name) = File.join(@path, "#{name}.sqlite3")

      # The queue database when db:prepare put Solid Queue's tables there, else the primary.
      def tables_file
        queue = file("queue")
        File.file?(queue) && read(queue, PROCESSES_TABLE).any? ? queue : file("primary")
      end

      def read(database, sql)
        out, err, status = Open3.capture3(EXECUTABLE, "-readonly", "-batch", "-cmd", ".timeout #{BUSY_MS}",
                                          database, sql)
        raise Failed, "#{EXECUTABLE} could not read #{database}: #{Text.scrub(err.strip)}" unless status.success?

        out.lines(chomp: true).map { |line| line.split("|", -1) }
      end
    end
  end
end

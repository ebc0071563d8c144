# frozen_string_literal: true

require "etc"
require "fileutils"

module Mallard
  module Target
    # The user a subject runs as (--user): apps packaged to run as www-data refuse root. mallard stays
    # root — it must read the subject's /proc files and signal its group — and only the subject drops
    # to the user, through Process.spawn's uid:/gid:, which also sets the user's groups. The subject
    # stays the direct child mallard samples and diagnoses; runuser or su would sit in between.
    class SubjectUser
      attr_reader :name, :uid, :gid

      # @param name [String] a user name, or a numeric user ID
      # @param euid [Integer] mallard's effective user ID
      # @raise [UsageError] unknown user, or mallard is not root and so may not switch
      def self.resolve(name, euid: Process.euid)
        entry = lookup(name)
        raise UsageError, "--user #{name}: no such user" unless entry

        unless euid.zero?
          raise UsageError, "--user needs mallard to run as root (it runs as #{login(euid)}); run it with sudo, " \
                            "or leave --user out to run the subject as yourself"
        end

        new(entry)
      end

      def self.lookup(name)
        name.match?(/\A\d+\z/) ? Etc.getpwuid(Integer(name)) : Etc.getpwnam(name)
      rescue ArgumentError
        nil
      end

      def self.login(uid)
        Etc.getpwuid(uid)&.name || uid.to_s
      rescue ArgumentError
        uid.to_s
      end

      private_class_method :lookup, :login

      def initialize(entry)
        @name = entry.name
        @uid = entry.uid
        @gid = entry.gid
        @home = entry.dir
      end

      def spawn_options
        { uid: @uid, gid: @gid }
      end

      # What a login as that user would set; tools such as Bundler look in HOME.
      def env
        { "HOME" => @home, "USER" => @name, "LOGNAME" => @name }
      end

      # Refuses a run directory the user could not reach: the subject writes agent.jsonl into it and
      # reads the generated rackup from it. Checked by the user itself (`test -x` with its uid), on the
      # nearest directory that exists, before mallard creates anything.
      # @raise [UsageError]
      def check_reach!(path)
        directory = nearest_existing(File.expand_path(path))
        return if as_user("test", "-x", directory)

        raise UsageError, "--user #{@name} may not enter #{directory}, where the run directory goes; " \
                          "give --out a directory #{@name} can reach (e.g. under /tmp)"
      end

      # Gives the user the files of the run directory it writes to: agent.jsonl (subject.log is opened
      # by mallard, before the switch). Checked as the user, since a umask of 077 on the way there
      # would leave the subject running but its records silently lost.
      # @raise [Error] the user still cannot write it
      def prepare(run_dir)
        path = run_dir.file("agent.jsonl")
        File.open(path, File::CREAT | File::WRONLY | File::APPEND, 0o600) { nil }
        File.chown(@uid, @gid, path)
        return if as_user("test", "-w", path)

        raise Error, "--user #{@name} cannot write #{path} (directories above it closed by the umask?); " \
                     "give --out a directory #{@name} can reach"
      end

      def describe
        "as #{@name}"
      end

      # Hands a directory mallard made to the user (mode as made, 0700 for heap/): the one place of the run
      # directory the subject writes more than its own log into.
      def give(path)
        File.chown(@uid, @gid, path)
      end

      private

      def nearest_existing(path)
        path = File.dirname(path) until File.directory?(path)
        path
      end

      def as_user(*argv)
        pid = Process.spawn(*argv, **spawn_options, in: File::NULL, out: File::NULL, err: File::NULL)
        Process.wait2(pid).last.success?
      rescue SystemCallError
        false
      end

      # The subject runs as mallard's own user.
      module Same
        module_function

        def spawn_options = {}
        def env = {}
        def check_reach!(_path) = nil
        def prepare(_run_dir) = nil
        def give(_path) = nil
        def describe = nil
      end
    end
  end
end

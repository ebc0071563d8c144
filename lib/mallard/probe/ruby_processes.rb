# frozen_string_literal: true

module Mallard
  module Probe
    # The Ruby processes a command started, found by following its process tree through whatever it
    # went through first: `runuser`, `sudo`, `sh -c`, `env`, `foreman`, a `bundle exec` that forks.
    #
    # The one to read is the topmost Ruby process that is not itself a launcher, a launcher being a Ruby
    # process with another Ruby *program* below it (foreman, a forking `bundle exec`). A Ruby process
    # below it that it forked without exec (a Puma worker) is the same program, so it does not make
    # its parent a launcher: the kernel marks such a process PF_FORKNOEXEC until it execs.
    class RubyProcesses
      PF_FORKNOEXEC = 0x40
      LIBRUBY = %r{/libruby[-.]}

      def initialize(root, proc_root: "/proc")
        @root = root
        @proc_root = proc_root
        @tree = ProcessTree.pids(root, proc_root: proc_root)
        @rubies = @tree.select { |pid| ruby?(pid) }
      end

      # @return [Integer, nil] the PID to read, nil when the command started no Ruby
      def main
        @rubies.find { |pid| !launcher?(pid) }
      end

      # The other Ruby processes under the command (workers, launchers, sibling programs), top first.
      def others
        @rubies - [main]
      end

      private

      def launcher?(pid)
        below = ProcessTree.pids(pid, proc_root: @proc_root).drop(1)
        below.any? { |child| @rubies.include?(child) && !forked_without_exec?(child) }
      end

      # A Ruby executable (the name says so: ruby, ruby3.1, truffleruby) or one that maps libruby.
      def ruby?(pid)
        files = ProcFiles.new(pid, root: @proc_root)
        return true if File.basename(files.exe.to_s).include?("ruby")

        files.mapped_paths.any? { |path| path.match?(LIBRUBY) }
      rescue Error
        false
      end

      def forked_without_exec?(pid)
        (ProcStat.field(pid, ProcStat::FLAGS, proc_root: @proc_root).to_i & PF_FORKNOEXEC).positive?
      end
    end
  end
end

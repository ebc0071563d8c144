# frozen_string_literal: true

module Mallard
  module Probe
    # One process's files under /proc, read from outside the process. The kernel's refusals are
    # turned into mallard errors that say what to do, because "Errno::EACCES" helps nobody.
    # A command line, an environment, a mapped file's name or a process name may hold any bytes, so
    # everything read here is scrubbed (see Text) before it reaches a report or a JSON file.
    class ProcFiles
      attr_reader :pid

      def initialize(pid, root: "/proc")
        @pid = Integer(pid)
        @dir = File.join(root, @pid.to_s)
      end

      def exist?
        File.directory?(@dir)
      end

      def read(name)
        Text.scrub(File.binread(File.join(@dir, name)))
      rescue Errno::ENOENT, Errno::ESRCH
        raise NotFound, "no process with PID #{pid}"
      rescue Errno::EACCES, Errno::EPERM
        raise PermissionDenied, "may not read /proc/#{pid}/#{name} #{refusal_reason}"
      end

      # "Key:\tvalue" lines of /proc/PID/status as a Hash of strings.
      def status
        read("status").each_line.to_h do |line|
          key, value = line.split(":", 2)
          [key, value.to_s.strip]
        end
      end

      # The environment the process was started with (later setenv calls are not visible).
      def environ
        read("environ").split("\0").each_with_object({}) do |pair, env|
          key, value = pair.split("=", 2)
          env[key] = value.to_s unless key.nil? || key.empty?
        end
      end

      def cmdline
        read("cmdline").split("\0")
      end

      # The files mapped into the address space, each once, in first-mapped order.
      def mapped_paths
        read("maps").each_line.filter_map { |line| line.split(" ", 6)[5]&.strip }
                    .select { |path| path.start_with?("/") }
                    .map { |path| path.delete_suffix(" (deleted)") }
                    .uniq
      end

      # smaps_rollup (Linux 4.14+) is one summed record; older kernels need the per-mapping file.
      def smaps_summary
        read("smaps_rollup")
      rescue NotFound
        raise unless exist?

        read("smaps")
      end

      # Every mapping with its sizes: the kernel formats a record per mapping, so it is read only now and then
      # (Probe::Sampler).
      def smaps
        read("smaps")
      end

      # Scrubbed like the rest; a caller that runs it falls back to /proc/PID/exe when that path is not there.
      def exe
        Text.scrub(File.readlink(File.join(@dir, "exe")))
      rescue Errno::ENOENT, Errno::EACCES, Errno::EPERM
        nil
      end

      private

      # Reading another process's maps or environ takes the kernel's ptrace check, not just file modes:
      # "run as root" is advice only for someone who is neither root nor the owner.
      def refusal_reason
        owner = owner_uid
        if Process.euid.zero?
          "even as root: the kernel's ptrace check refused (the process is in another container or user " \
            "namespace, mallard lacks CAP_SYS_PTRACE, or a security module such as Yama or AppArmor forbids it)"
        elsif owner == Process.euid
          "although it runs as this user (uid #{owner}): the kernel's ptrace check refused (the process " \
            "changed user or is not dumpable, or Yama's ptrace_scope forbids it); run mallard as root"
        else
          "(the process belongs to uid #{owner}); run mallard as that user or as root"
        end
      end

      # The real uid from status (readable by anyone): the owner of /proc/PID itself becomes root
      # when a process is not dumpable, whoever runs it.
      def owner_uid
        Integer(File.read(File.join(@dir, "status"))[/^Uid:\s*(\d+)/, 1])
      rescue SystemCallError, TypeError, ArgumentError
        "?"
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Cpus
    # Which CPUs a thread may run on, through the kernel's sched_setaffinity (Ruby has no binding of its own;
    # Fiddle does it: a default gem to Ruby 3.4, a bundled one from 4.0, so mallard's gemspec names it). A mask
    # belongs to a thread: a process forked by that thread inherits it, and threads it creates start with it, so
    # mallard pins every thread it has, and narrows one thread's mask for the moment it spawns the subject.
    module Affinity
      # cpu_set_t: 1,024 bits, glibc's CPU_SETSIZE.
      MASK_BYTES = 128

      module_function

      # @return [Array<Integer>] the CPUs this thread may run on (a container's cpuset included)
      def allowed(status_path: "/proc/thread-self/status")
        list = File.read(status_path)[/^Cpus_allowed_list:\s*(\S+)/, 1]
        list ? Layout.parse_list(list) : []
      rescue SystemCallError
        []
      end

      # Pins every thread of this process (later threads inherit the creating thread's mask).
      def pin_process(cpus)
        Dir.children("/proc/self/task").each do |tid|
          set(Integer(tid), cpus)
        rescue Error
          raise if File.exist?("/proc/self/task/#{tid}") # a thread that ended meanwhile needs no pinning
        end
      end

      # Runs the block with this thread on cpus, so that the processes it spawns start (and stay) there.
      def with(cpus)
        before = allowed
        set(0, cpus)
        yield
      ensure
        set(0, before) if before&.any?
      end

      # @param tid [Integer] a thread ID, 0 for the calling thread
      # @raise [Error] when the kernel refuses (a CPU outside the cpuset, or no permission)
      def set(tid, cpus)
        mask = Array.new(MASK_BYTES * 8, "0")
        cpus.each { |cpu| mask[cpu] = "1" }
        return if setaffinity.call(tid, MASK_BYTES, [mask.join].pack("b*")).zero?

        raise Error, "cannot pin to CPUs #{Layout.format_list(cpus)}: sched_setaffinity failed " \
                     "(errno #{Fiddle.last_error})"
      end

      # Fiddle is loaded here, when a run pins, not with the file: every command loads this one.
      def setaffinity
        require "fiddle"
        @setaffinity ||= Fiddle::Function.new(Fiddle.dlopen(nil)["sched_setaffinity"],
                                              [Fiddle::TYPE_INT, Fiddle::TYPE_SIZE_T, Fiddle::TYPE_VOIDP],
                                              Fiddle::TYPE_INT)
      end
    end
  end
end

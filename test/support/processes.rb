# frozen_string_literal: true

# Real processes for integration tests, started the way puma's own tests do: Gem.ruby, a
# monotonic deadline, a signal to stop, and Process.wait so nothing outlives the test.
module Processes
  ROOT = File.expand_path("../..", __dir__)
  EXE = File.join(ROOT, "exe", "mallard")
  TEST_TIMEOUT = 60
  # Every real-process test's own time limit, setup and teardown included, so that a hang fails its test by name
  # instead of the whole run: far above the longest test's time here. A class with longer tests sets its own.
  TIME_LIMIT = 480

  # The limit's watch starts before setup: past it, the test's thread gets a Timeout::Error naming the test.
  def before_setup
    super
    runner = Thread.current
    limit = self.class::TIME_LIMIT
    label = "#{self.class}##{name}"
    @time_limit = Thread.new do
      sleep limit
      runner.raise(Timeout::Error, "#{label} passed its time limit of #{limit} s")
    end
  end

  def setup
    super
    @spawned = []
  end

  def teardown
    @spawned.each { |pid| stop_process(pid) }
    super
  end

  def after_teardown
    @time_limit&.kill
    super
  end

  # Starts Ruby code in a child and returns its PID once the child says it is ready.
  # prefix: a command that execs Ruby in its own process (setpriv as another user).
  def spawn_ruby(code, env: {}, prefix: [])
    reader, writer = IO.pipe
    pid = Process.spawn(env, *prefix, Gem.ruby, "-e", "#{code}\n$stdout.puts :ready; $stdout.flush; sleep",
                        out: writer, err: File::NULL)
    writer.close
    @spawned << pid
    Timeout.timeout(10) { reader.gets }
    pid
  ensure
    reader&.close
  end

  def stop_process(pid)
    Process.kill("KILL", pid)
    Process.wait(pid)
  rescue Errno::ESRCH, Errno::ECHILD
    nil
  end

  # Runs the real executable; returns [stdout, stderr, Process::Status]. timeout: for runs longer by design (a
  # heap run at the default 20 s of load, then its dumps).
  def mallard(*args, env: {}, chdir: Dir.pwd, timeout: TEST_TIMEOUT)
    Timeout.timeout(timeout) { Open3.capture3(env, Gem.ruby, EXE, *args.map(&:to_s), chdir: chdir) }
  end

  # A PID that certainly names no process: one we started and reaped.
  def dead_pid
    pid = Process.spawn(Gem.ruby, "-e", "exit")
    Process.wait(pid)
    pid
  end

  # PIDs of live processes whose environment holds MALLARD_TEST_TAG=tag. Every descendant of a process started
  # with the tag inherits it, so this finds them all, even once they have been re-parented.
  def processes_tagged(tag)
    Dir.glob("/proc/[0-9]*/environ").filter_map do |environ|
      dir = File.dirname(environ)
      Integer(File.basename(dir)) if File.binread(environ).split("\0").include?("MALLARD_TEST_TAG=#{tag}") &&
                                     !zombie?(dir)
    rescue SystemCallError
      nil
    end
  end

  # Tagged processes other than mallard's lifeline watchdog. The watchdog carries the tag too and lives a moment
  # past mallard (it checks what mallard left); anything else still alive was left by mallard's own stop. A
  # process whose command line reads empty is already exiting (the watchdog, as it ends): not left.
  def processes_left_by_mallard(tag)
    processes_tagged(tag).reject do |pid|
      cmdline = File.binread("/proc/#{pid}/cmdline")
      cmdline.empty? || cmdline.include?("lifeline/watchdog.rb")
    rescue SystemCallError
      true
    end
  end

  # PIDs of live processes in the process group pgid.
  def processes_in_group(pgid)
    Dir.glob("/proc/[0-9]*/stat").filter_map do |stat|
      fields = File.read(stat).rpartition(")").last.split
      Integer(File.basename(File.dirname(stat))) if Integer(fields[2]) == pgid && fields[0] != "Z"
    rescue SystemCallError
      nil
    end
  end

  # A zombie has exited; only its parent's wait is missing (and a dead parent's orphans wait for init).
  def zombie?(proc_dir)
    File.read(File.join(proc_dir, "stat")).rpartition(")").last.split.first == "Z"
  rescue SystemCallError
    true
  end

  def new_tag(name)
    "#{name}-#{Process.pid}-#{rand(1 << 30)}"
  end

  def wait_for(timeout: 30, message: "timed out waiting")
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
    loop do
      value = yield
      return value if value
      raise message if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

      sleep 0.1
    end
  end

  # The block's value once it is truthy, or its last value when the time is up (for an assertion).
  def eventually(timeout)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
    loop do
      value = yield
      return value if value || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

      sleep 0.1
    end
  end

  # Command lines of processes, for a failure message.
  def command_lines(pids)
    pids.map { |pid| File.read("/proc/#{pid}/cmdline").tr("\0", " ") }.join("; ")
  rescue SystemCallError
    pids.join(", ")
  end

  # Child PIDs of a process, from /proc (tests check that mallard leaves none behind).
  def children_of(pid)
    Dir.glob("/proc/[0-9]*/stat").filter_map do |stat|
      fields = File.read(stat).split(") ").last.split
      Integer(File.basename(File.dirname(stat))) if Integer(fields[1]) == pid
    rescue SystemCallError
      nil
    end
  end
end

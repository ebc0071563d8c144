# frozen_string_literal: true

# Real processes for integration tests, started the way puma's own tests do: Gem.ruby, a
# monotonic deadline, a signal to stop, and Process.wait so nothing outlives the test.
module Processes
  ROOT = File.expand_path("../..", __dir__)
  EXE = File.join(ROOT, "exe", "mallard")
  TEST_TIMEOUT = 60

  def setup
    super
    @spawned = []
  end

  def teardown
    @spawned.each { |pid| stop_process(pid) }
    super
  end

  # Starts Ruby code in a child and returns its PID once the child says it is ready.
  def spawn_ruby(code, env: {})
    reader, writer = IO.pipe
    pid = Process.spawn(env, Gem.ruby, "-e", "#{code}\n$stdout.puts :ready; $stdout.flush; sleep",
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

  # Runs the real executable; returns [stdout, stderr, Process::Status].
  def mallard(*args, env: {}, chdir: Dir.pwd)
    Timeout.timeout(TEST_TIMEOUT) { Open3.capture3(env, Gem.ruby, EXE, *args.map(&:to_s), chdir: chdir) }
  end

  # A PID that certainly names no process: one we started and reaped.
  def dead_pid
    pid = Process.spawn(Gem.ruby, "-e", "exit")
    Process.wait(pid)
    pid
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

# frozen_string_literal: true

require "fileutils"
require "socket"
require "tmpdir"

# A real Puma serving a fixture app, started the way puma's own integration tests do: an
# OS-chosen port, a connect loop against a monotonic deadline, TERM to its process group and
# Process.wait so nothing outlives the test.
class PumaServer
  APPS = File.expand_path("../fixtures/apps", __dir__)
  BOOT_TIMEOUT = 20
  STOP_GRACE = 5

  attr_reader :port, :pid, :log_path

  def initialize(app = "hello", threads: "2:2")
    @app_dir = File.join(APPS, app)
    @threads = threads
  end

  def url
    "http://127.0.0.1:#{@port}"
  end

  def start
    @port = free_port
    @log_dir = Dir.mktmpdir("mallard-puma")
    @log_path = File.join(@log_dir, "puma.log")
    @pid = Process.spawn("puma", "-b", "tcp://127.0.0.1:#{@port}", "-t", @threads, "config.ru",
                         chdir: @app_dir, pgroup: true, in: File::NULL, out: @log_path, err: %i[child out])
    wait_until_listening
    self
  end

  def stop
    return unless @pid

    signal("TERM")
    deadline = monotonic + STOP_GRACE
    sleep 0.05 while !reaped? && monotonic < deadline
    signal("KILL") unless @status
    Process.wait(@pid) unless @status
  rescue Errno::ECHILD
    nil
  ensure
    @pid = nil
    FileUtils.rm_rf(@log_dir) if @log_dir
  end

  private

  # Binding port 0 lets the OS choose; the port is free again once the probe socket is closed.
  def free_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end

  def wait_until_listening
    deadline = monotonic + BOOT_TIMEOUT
    until listening?
      raise "puma exited before listening:\n#{File.read(@log_path)}" if reaped?
      raise "puma did not listen within #{BOOT_TIMEOUT} s:\n#{File.read(@log_path)}" if monotonic > deadline

      sleep 0.05
    end
  end

  def listening?
    TCPSocket.new("127.0.0.1", @port).close
    true
  rescue SystemCallError
    false
  end

  def reaped?
    _, @status = Process.waitpid2(@pid, Process::WNOHANG) unless @status
    !@status.nil?
  end

  def signal(name)
    Process.kill(name, -@pid)
  rescue Errno::ESRCH, Errno::EPERM
    nil
  end

  def monotonic
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end

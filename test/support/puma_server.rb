# frozen_string_literal: true

require "fileutils"
require "socket"
require "tmpdir"

# A real Puma serving a fixture app on an OS-chosen port, started and stopped by the same
# Target::Command mallard uses for its subjects: own process group, a connect loop against a
# monotonic deadline, TERM then KILL, and the process reaped so nothing outlives the test.
class PumaServer
  APPS = File.expand_path("../fixtures/apps", __dir__)
  BOOT_TIMEOUT = 20

  attr_reader :port

  def initialize(app = "hello", threads: "2:2")
    @app_dir = File.join(APPS, app)
    @threads = threads
  end

  def url
    "http://127.0.0.1:#{@port}"
  end

  def start
    @port = Mallard::Target::FreePort.pick
    @log_dir = Dir.mktmpdir("mallard-puma")
    @command = Mallard::Target::Command.new(
      ["puma", "-b", "tcp://127.0.0.1:#{@port}", "-t", @threads, "config.ru"],
      chdir: @app_dir, log_path: File.join(@log_dir, "puma.log")
    )
    @command.start.wait_until_up(timeout: BOOT_TIMEOUT) { listening? }
    self
  end

  def stop
    @command&.stop
  ensure
    @command = nil
    FileUtils.rm_rf(@log_dir) if @log_dir
  end

  private

  def listening?
    TCPSocket.new("127.0.0.1", @port).close
    true
  rescue SystemCallError
    false
  end
end

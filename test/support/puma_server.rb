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

  # @param app [String] a fixture's name, or a directory holding a config.ru
  # @param env [Hash] the server's environment on top of this one (RUBYOPT for the exporter, MALLOC_ARENA_MAX)
  # @param workers [Integer] Puma's cluster mode when positive
  def initialize(app = "hello", threads: "2:2", env: {}, workers: 0)
    @app_dir = File.directory?(app) ? app : File.join(APPS, app)
    @threads = threads
    @env = env
    @workers = workers
  end

  def pid
    @command&.pid
  end

  # Everything the server printed so far.
  def log
    File.read(File.join(@log_dir, "puma.log"))
  rescue SystemCallError
    ""
  end

  def url
    "http://127.0.0.1:#{@port}"
  end

  def start
    @port = Mallard::Target::FreePort.pick
    @log_dir = Dir.mktmpdir("mallard-puma")
    @command = Mallard::Target::Command.new(
      ["puma", "-b", "tcp://127.0.0.1:#{@port}", "-t", @threads, "-w", @workers.to_s, "config.ru"],
      chdir: @app_dir, log_path: File.join(@log_dir, "puma.log"), env: @env
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

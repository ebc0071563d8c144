# frozen_string_literal: true

# Fault injection: runs the real `mallard` under a matrix of faults — signals at random moments of soak and
# compare, a second signal hard on the first, mallard killed outright, the subject or the load tool killed,
# the disk filling up mid-run, bad bytes from the subject — and says for each: exit status, samples kept,
# whether a summary was written (or, when the disk was full, printed), and processes left running.
#
#   ruby bench/fault_matrix.rb [SEED]      # as root (the disk-full case mounts a small tmpfs)
#
# Every row should read "kept, summarised, nothing left running".
require "json"
require "open3"
require "tmpdir"
require "fileutils"

module FaultMatrix
  ROOT = File.expand_path("..", __dir__)
  EXE = File.join(ROOT, "exe", "mallard")
  APPS = File.join(ROOT, "test", "fixtures", "apps")
  HELLO = File.join(APPS, "hello")
  Row = Struct.new(:name, :exit, :samples, :summary, :left)

  module_function

  def run(seed)
    random = Random.new(seed)
    Dir.mktmpdir("mallard-faults") do |tmp|
      rows = cases(random).map { |name, action| measure(name, tmp, &action) }
      print_table(rows, seed)
    end
  end

  def cases(random) # rubocop:disable Metrics/AbcSize -- a table of cases
    soak = ["soak", HELLO, "--duration", "30", "--interval", "0.2"]
    compare = ["compare", HELLO, "--allocators", "glibc,jemalloc", "--repeat", "2", "--duration", "3",
               "--interval", "0.2"]
    at = -> { ((random.rand * 6) + 0.5).round(2) }
    [
      ["soak, SIGINT at a random moment", ->(run) { run.signal(soak, "INT", after: at.call) }],
      ["soak, SIGTERM at a random moment", ->(run) { run.signal(soak, "TERM", after: at.call) }],
      ["soak, SIGINT twice 0.05 s apart", ->(run) { run.signal(soak, "INT", after: at.call, again: 0.05) }],
      ["soak, SIGHUP during boot (before any sample)", ->(run) { run.signal(soak, "HUP", after: 0.3) }],
      ["soak, mallard killed (SIGKILL)", ->(run) { run.signal(soak, "KILL", after: at.call) }],
      ["compare, SIGINT at a random moment", ->(run) { run.signal(compare, "INT", after: at.call + 4) }],
      ["compare, SIGTERM twice", ->(run) { run.signal(compare, "TERM", after: at.call + 4, again: 0.05) }],
      ["compare, mallard killed (SIGKILL)", ->(run) { run.signal(compare, "KILL", after: at.call + 4) }],
      ["soak, subject killed mid-run", ->(run) { run.kill_child(soak, "puma", after: at.call) }],
      ["soak, load generator killed", ->(run) { run.kill_child(soak, "wrk", after: at.call) }],
      ["soak, disk full mid-run", ->(run) { run.disk_full(soak, after: at.call) }],
      ["compare, bad bytes in a failing config's output", ->(run) { run.bad_bytes(compare) }]
    ]
  end

  def measure(name, tmp)
    run = Run.new(File.join(tmp, name.gsub(/\W+/, "-")))
    status = yield run
    sleep 3 # whatever mallard left behind has had time to notice it is alone
    Row.new(name, status, run.samples_kept, run.summarised?, run.left_running)
  end

  def print_table(rows, seed)
    puts "| fault | exit | samples kept | summary | processes left |"
    puts "|---|---|---|---|---|"
    rows.each do |row|
      puts "| #{row.name} | #{row.exit} | #{row.samples} | #{row.summary ? 'yes' : 'no'} | #{row.left} |"
    end
    good = rows.count do |row|
      row.summary && row.left.zero? && (row.samples.positive? || row.name.include?("before any"))
    end
    puts "\n#{good} of #{rows.size} kept, summarised, nothing left running (seed #{seed})"
  end

  # One faulted run: its own directory, its own tag in the environment of everything it starts.
  class Run
    def initialize(dir)
      @dir = dir
      @out = File.join(dir, "run")
      @tag = "mallard-fault-#{Process.pid}-#{rand(1 << 30)}"
      FileUtils.mkdir_p(dir)
    end

    def signal(argv, signal, after:, again: nil)
      pid = start(argv)
      sleep after
      Process.kill(signal, pid)
      if again
        sleep again
        Process.kill(signal, pid)
      end
      finish(pid)
    end

    def kill_child(argv, name, after:)
      pid = start(argv)
      sleep after
      tagged.each { |child| Process.kill("KILL", child) if command(child).include?(name) }
      finish(pid)
    end

    def disk_full(argv, after:)
      mount = File.join(@dir, "small")
      FileUtils.mkdir_p(mount)
      system("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mount, exception: true)
      @out = File.join(mount, "run")
      pid = start(argv)
      sleep after
      fill(File.join(mount, "filler"))
      status = finish(pid)
      @samples_before_unmount = samples_kept
      system("umount", "-l", mount)
      status
    end

    def bad_bytes(argv)
      app = File.join(@dir, "app")
      FileUtils.mkdir_p(app)
      File.write(File.join(app, "config.ru"), <<~RUBY)
        raise "x \\xff\\e[31m".b if ENV["LD_PRELOAD"].to_s.include?("jemalloc")
        run ->(_env) { [200, { "content-type" => "text/plain" }, ["ok"]] }
      RUBY
      finish(start([argv[0], app, *argv[2..]]))
    end

    def fill(path)
      File.write(path, "\0" * (16 << 20))
    rescue Errno::ENOSPC
      nil # full: that was the point
    end

    def samples_kept
      return @samples_before_unmount if @samples_before_unmount

      Dir.glob(File.join(@out, "**", "samples.jsonl")).sum { |file| File.foreach(file).count }
    end

    # Printed on stdout as JSON (the disk may not have taken it), or, for a mallard killed before it could
    # write one, what `mallard report` makes of the run: of a comparison, of each of its soak runs.
    def summarised?
      printed? || reportable?(@out) || soak_runs_reportable?
    end

    def soak_runs_reportable?
      runs = Dir.glob(File.join(@out, "*", "meta.json")).map { |meta| File.dirname(meta) }
      runs.any? && runs.all? { |run| reportable?(run) }
    end

    def printed?
      JSON.parse(@stdout).is_a?(Hash)
    rescue JSON::ParserError, TypeError
      false
    end

    def reportable?(dir)
      _, _, status = Open3.capture3(Gem.ruby, EXE, "report", dir, "--json")
      status.success?
    end

    def left_running
      tagged.size
    end

    private

    def start(argv)
      @stdout_path = File.join(@dir, "stdout")
      Process.spawn({ "MALLARD_TEST_TAG" => @tag }, Gem.ruby, EXE, *argv, "--json", "--out", @out,
                    out: @stdout_path, err: File.join(@dir, "stderr"))
    end

    def finish(pid)
      _, status = Process.wait2(pid)
      @stdout = File.read(@stdout_path)
      status.exitstatus || "signal #{status.termsig}"
    end

    def tagged
      Dir.glob("/proc/[0-9]*/environ").filter_map do |environ|
        pid = Integer(environ.split("/")[2])
        pid if pid != Process.pid && File.binread(environ).include?("MALLARD_TEST_TAG=#{@tag}")
      rescue SystemCallError
        nil
      end
    end

    def command(pid)
      File.binread("/proc/#{pid}/cmdline").tr("\0", " ")
    rescue SystemCallError
      ""
    end
  end
end

FaultMatrix.run(Integer(ARGV.fetch(0, Random.new_seed % 100_000)))

# frozen_string_literal: true

require "json"
require "timeout"
require "tmpdir"
require_relative "rubies"

# A job backend's soak on the built Ruby 3.3.8 (its gems installed there by bin/rubies) while the test reads the
# subject's tree from outside, as the Solid Queue, GoodJob and Resque tests do: each test names its APP, DURATION and
# SETTLE_S and reads the tree its own way (read_tree), from SETTLE_S into the load until the run writes its summary.
module JobBackendSoaks
  include Processes

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-job-backend")
    @out = File.join(@tmp, "run")
    @tag = new_tag("job-backend")
    @ruby = Rubies.path(Rubies::STOCK)
    Rubies.extensions(Rubies::STOCK) # built once, outside the run's time
  end

  def teardown
    FileUtils.remove_entry(@tmp) if @tmp
    super
  end

  private

  # `mallard soak --jobs BACKEND` of APP's workload.rb for DURATION, read by read_tree(reads, mallard_pid) every
  # `every` seconds meanwhile.
  # @return [Array(Hash, Process::Status, String)] the summary, mallard's status and its stderr
  def soak_watched(backend, reads, args: [], env: {}, every: 0.5)
    out_file = File.join(@tmp, "summary.json")
    err_file = File.join(@tmp, "err.log")
    pid = Process.spawn({ "MALLARD_TEST_TAG" => @tag }.merge(env), Gem.ruby, EXE, "soak", "--jobs", backend,
                        "--workload", File.join(self.class::APP, "workload.rb"), "--ruby", @ruby,
                        "--duration", self.class::DURATION.to_s, "--json", "--out", @out, *args, self.class::APP,
                        out: out_file, err: err_file)
    watcher = Thread.new { watch(pid, reads, every) }
    _, status = Timeout.timeout(self.class::DURATION + 60) { Process.wait2(pid) }
    watcher.kill
    out = File.read(out_file)
    [JSON.parse(out.empty? ? "{}" : out), status, File.read(err_file)]
  end

  # A mallard soak killed with SIGKILL once the load has begun (or `started_when` says); the block names what it
  # started, read before the kill.
  # @return [Array<Integer>] those pids
  def killed_mid_soak(backend, env: {}, started_when: ->(_mallard) { File.exist?(File.join(@out, "workload.log")) })
    mallard = Process.spawn({ "MALLARD_TEST_TAG" => @tag }.merge(env), Gem.ruby, EXE, "soak", "--jobs", backend,
                            "--workload", File.join(self.class::APP, "workload.rb"), "--ruby", @ruby,
                            "--duration", "30", "--out", @out, self.class::APP, out: File::NULL, err: File::NULL)
    @spawned << mallard
    wait_for(timeout: 40, message: "the load never started") { started_when.call(mallard) }
    started = yield(mallard)
    Process.kill("KILL", mallard)
    Process.wait(mallard)
    started
  end

  def watch(mallard, reads, every)
    started = nil
    loop do
      started ||= now if loading?
      read_tree(reads, mallard) if started && now - started >= self.class::SETTLE_S && !File.exist?(summary_path)
      sleep every
    end
  end

  # Backends' titles overwrite their processes' environment area, MALLARD_TEST_TAG with it: they are known by the
  # subject's tree instead.
  def assert_gone(pids, within:)
    left = -> { pids.uniq.select { |pid| File.exist?("/proc/#{pid}") && !zombie?("/proc/#{pid}") } }
    assert eventually(within) { left.call.empty? }, -> { "survived mallard: #{command_lines(left.call)}" }
  end

  def meta = JSON.parse(File.read(File.join(@out, "meta.json")))
  def subject_pids = tree_pids(meta["subject_pid"])

  # The process and its descendants, as /proc lists each thread's children.
  def tree_pids(root)
    pids = [root]
    pids.each do |pid|
      Dir.glob("/proc/#{pid}/task/*/children").each { |file| pids.concat(File.read(file).split.map(&:to_i)) }
    end
    pids.uniq
  rescue SystemCallError
    pids
  end

  def pss_of(pid) = Integer(File.read("/proc/#{pid}/smaps_rollup")[/^Pss:\s+(\d+)/, 1])

  def command_line(pid)
    File.read("/proc/#{pid}/cmdline").tr("\0", " ")
  rescue SystemCallError
    ""
  end

  def loading? = File.size?(File.join(@out, "samples.jsonl")) && File.exist?(File.join(@out, "meta.json"))
  def summary_path = File.join(@out, "summary.json")
  def median(values) = values.sort[values.size / 2]
  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

# frozen_string_literal: true

require "json"

# What integration tests read of a live or finished run directory, and the processes a run may leave.
module RunDirectories
  def subject_pid(out_dir)
    JSON.parse(File.read(File.join(out_dir, "meta.json")))["subject_pid"]
  rescue Errno::ENOENT, JSON::ParserError
    nil
  end

  def sample_count(out_dir)
    path = File.join(out_dir, "samples.jsonl")
    File.exist?(path) ? File.foreach(path).count { |line| line.include?('"kind":"total"') } : 0
  end

  def wait_for(timeout: 30)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
    loop do
      value = yield
      return value if value
      raise "timed out waiting" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

      sleep 0.1
    end
  end

  def processes_in_group(pgid)
    Dir.glob("/proc/[0-9]*/stat").select do |stat|
      Integer(File.read(stat).rpartition(")").last.split[2]) == pgid
    rescue SystemCallError
      false
    end
  end

  # Every descendant of mallard inherits its environment, so a tag there finds them all, even
  # once they have been re-parented.
  def processes_tagged(tag)
    Dir.glob("/proc/[0-9]*/environ").select do |environ|
      File.binread(environ).include?("MALLARD_TEST_TAG=#{tag}")
    rescue SystemCallError
      false
    end
  end
end

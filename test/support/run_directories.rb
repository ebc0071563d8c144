# frozen_string_literal: true

require "json"

# What integration tests read of a live or finished run directory (the processes a run may leave: Processes).
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
end

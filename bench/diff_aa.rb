# frozen_string_literal: true

# A/A for `mallard diff`: back-to-back soak pairs of the same app under the same configuration, each pair diffed on
# steady memory; how many diffs call a difference (issue 20: at most 1 in 20). Two subjects: the fragmenting web
# app (five Puma threads) and a 20-thread Sidekiq worker running fragmenting jobs.
#   ruby bench/diff_aa.rb [PAIRS] [SECONDS]
require_relative "support"
require "json"
require "stringio"

pairs = Integer(ARGV.fetch(0, 20))
seconds = Integer(ARGV.fetch(1, 10))
jobs = File.expand_path("../test/fixtures/jobs", __dir__)
subjects = {
  "fragmenting web app" => [File.expand_path("../test/fixtures/apps/fragmenting", __dir__), "--threads", "5",
                            "--concurrency", "8"],
  "20-thread job worker" => ["--sidekiq", "--workload", File.join(jobs, "steady.rb"), jobs, "--", "sidekiq", "-r",
                             "./jobs.rb", "-c", "20"]
}
ENV["JOB"] = "FragmentingJob"

def mallard(argv)
  out = StringIO.new
  status = Mallard::CLI.new.run(argv, out: out, err: StringIO.new, env: ENV)
  [status, out.string]
end

subjects.each do |label, target|
  called = []
  changes = []
  bands = []
  Dir.mktmpdir("mallard-diff-aa") do |dir|
    pairs.times do |pair|
      runs = %w[a b].map do |side|
        run_dir = File.join(dir, "#{pair}-#{side}")
        mallard(["soak", "--duration", seconds.to_s, "--json", "--out", run_dir, *target])
        run_dir
      end
      _, out = mallard(["diff", *runs, "--json"])
      row = JSON.parse(out)["rows"].first
      changes << row["pct"]
      bands << row["noise_pct"]
      called << pair if row["significant"]
    end
  end
  spread = changes.compact.map(&:abs).max
  puts format("%s: %d pairs of %d s soaks, a difference called in %d (%s); largest |change| %.1f%%", label, pairs,
              seconds, called.size, called.inspect, spread || Float::NAN)
  puts "  changes: #{changes.compact.map { |pct| format('%+.1f', pct) }.join(' ')}"
  puts "  bands (±%): #{bands.compact.map { |pct| format('%.1f', pct) }.join(' ')}"
end

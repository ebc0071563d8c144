# frozen_string_literal: true

# The agent's own work, timed alone in one process (CPU time of this thread), with no app around it: what a request
# costs when it is measured against when it is only counted, what writing an interval's record costs, and what a
# memory ledger reading costs here (glibc's walks every free chunk, so an app's fragmented heap costs more: a soak's
# ledger lines say their own cost_ms). Set beside agent_paired.rb's side-by-side figures, it shows how much of the
# agent's cost in an app is its own work.
#   ruby bench/agent_work.rb [REQUESTS] [RECORDS]
$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "tmpdir"
require "mallard/agent/recorder"
require "mallard/agent/middleware"
require "mallard/agent/ledger"

requests = Integer(ARGV.fetch(0, 200_000))
records = Integer(ARGV.fetch(1, 500))
Body = Struct.new(:parts) do
  def each(&) = parts.each(&)
  def close; end
end
APP = ->(_env) { [200, {}, Body.new(["row\n"] * 3)] }

def cpu = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)

# µs of CPU a request through the middleware, the body iterated and closed as a server does.
def per_request(middleware, count)
  env = {}
  bytes = 0
  started = cpu
  count.times do
    _status, _headers, body = middleware.call(env)
    body.each { |chunk| bytes += chunk.bytesize }
    body.close
  end
  (cpu - started) / count * 1e6
end

Dir.mktmpdir do |dir|
  # Not started: no thread, and no record falls due, so every request is measured (the stride stays 1).
  measuring = Mallard::Agent::Recorder.new(path: File.join(dir, "measured.jsonl"))
  bare = Mallard::Agent::Middleware.new(APP, recorder: nil)
  measured = Mallard::Agent::Middleware.new(APP, recorder: measuring)
  3.times do |round|
    plain = per_request(bare, requests)
    each = per_request(measured, requests)
    puts format("round %d: a request passed on %.2f µs, measured %.2f µs: %.2f µs to measure one", round, plain, each,
                each - plain)
  end

  recorder = Mallard::Agent::Recorder.new(path: File.join(dir, "records.jsonl"))
  spent = 0.0
  records.times do
    Mallard::Agent::Recorder::SAMPLE_CAP.times { recorder.record(1.5, 2.5, 3, nil) }
    started = cpu
    recorder.flush
    spent += cpu - started
  end
  puts format("a record of %d requests written: %.0f µs", Mallard::Agent::Recorder::SAMPLE_CAP, spent / records * 1e6)

  ledger = Mallard::Agent::Ledger.new(origin: 0.0, interval: 0.0)
  started = cpu
  200.times { ledger.take(Process.clock_gettime(Process::CLOCK_MONOTONIC), requests: 1) }
  puts format("a ledger reading: %.0f µs", (cpu - started) / 200 * 1e6)
end

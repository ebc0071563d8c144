# frozen_string_literal: true

# What the agent costs in instructions, which callgrind counts the same way however busy the machine is (wall time
# under valgrind is not comparable: its slowdown varies with load). Puma serves APP under callgrind with
# instrumentation off through boot and a warm-up, then on for REQUESTS requests from 5 keep-alive connections, for
# each variant: plain (the app's own config.ru, no agent), loaded (the agent's files required, not started), agent
# (recording, its interval work idle during the count: MALLARD_AGENT_INTERVAL and MALLARD_LEDGER_INTERVAL 600,
# since under valgrind's ~50x slowdown a 0.5 s interval would come ~50 times as often per request as it does
# natively) and agent-0.5 (as mallard runs it: records every 0.5 s, the ledger every 2 s). Needs valgrind (Debian
# package valgrind).
#   ruby bench/agent_instructions.rb [REQUESTS] [APP] [PATH]
# MALLARD_BENCH_VARIANTS: which to run, in order (default "plain loaded agent agent-0.5"); also ballast
# (MALLARD_BENCH_BALLAST strings, default 1,660, kept from boot, no agent) and ballast-late (the same strings from
# Puma's first connection on): bench/apps/ballast.rb. MALLARD_BENCH_JITTER=N: N temporary strings at boot in every
# variant (bench/apps/boot_jitter.rb), another draw of Ruby 3.1's heap lottery.
require_relative "support"
require "net/http"
require "open3"

requests = Integer(ARGV.fetch(0, 2000))
app, path, extra_env = Bench.app_of(ARGV.fetch(1, File.expand_path("../examples/demo", __dir__)))
path = "/#{path}"
lib = File.expand_path("../lib", __dir__)

def hammer(url, count, connections: 5)
  Array.new(connections) do
    Thread.new do
      Net::HTTP.start(url.host, url.port) do |http|
        (count / connections).times do
          http.get(url.path).body
        end
      end
    end
  end.each(&:join)
end

def instructions(out_file)
  report, = Open3.capture2("callgrind_annotate", out_file)
  Integer(report[/([\d,]+)\s+\(100\.0%\)\s+PROGRAM TOTALS/, 1].delete(","))
end

BALLAST = File.expand_path("apps/ballast.rb", __dir__)

def variant_env(variant, lib, dir)
  jitter = ENV.fetch("MALLARD_BENCH_JITTER", nil)
  env = variant_only_env(variant, lib, dir)
  return env unless jitter

  env.merge("MALLARD_BENCH_JITTER" => jitter, "RUBYOPT" => "-r#{Bench::BOOT_JITTER} #{env['RUBYOPT']}".strip)
end

def variant_only_env(variant, lib, dir)
  agent = { "RUBYOPT" => "-I#{lib} -rmallard/agent", "MALLARD_AGENT_OUT" => File.join(dir, "agent.jsonl"),
            "MALLARD_T0" => Process.clock_gettime(Process::CLOCK_MONOTONIC).to_s }
  ballast = { "RUBYOPT" => "-r#{BALLAST}", "MALLARD_BENCH_BALLAST" => ENV.fetch("MALLARD_BENCH_BALLAST", "1660") }
  case variant
  when "plain" then { "RUBYOPT" => nil }
  when "loaded" then { "RUBYOPT" => "-I#{lib} -rmallard/agent" }
  when "ballast" then ballast
  when "ballast-late" then ballast.merge("MALLARD_BENCH_BALLAST_LATE" => "1")
  when "agent" then agent.merge("MALLARD_AGENT_INTERVAL" => "600", "MALLARD_LEDGER_INTERVAL" => "600")
  else agent.merge("MALLARD_AGENT_INTERVAL" => "0.5")
  end
end

Setup = Struct.new(:app, :path, :requests, :lib, :extra_env)

# @return [Integer] instructions Puma ran for setup.requests requests
def count(variant, setup)
  Dir.mktmpdir("mallard-instructions") do |dir|
    port = Mallard::Target::FreePort.pick
    out = File.join(dir, "callgrind.out")
    env = { "BUNDLE_GEMFILE" => nil }.merge(setup.extra_env, variant_env(variant, setup.lib, dir))
    pid = Process.spawn(env, "valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=#{out}",
                        "puma", "-b", "tcp://127.0.0.1:#{port}", "-t", "5:5", "-e", "production",
                        rackup(variant, setup.app, dir), chdir: setup.app, out: File::NULL, err: File::NULL)
    measure(pid, URI("http://127.0.0.1:#{port}#{setup.path}"), setup.requests)
    instructions(Dir.glob("#{out}*").max_by { |file| File.size(file) })
  end
end

def rackup(variant, app, dir)
  config_ru = File.join(app, "config.ru")
  return config_ru unless variant.start_with?("agent")

  Mallard::Target::Rackup.write(File.join(dir, "mallard.ru"), app_config_ru: config_ru)
end

# Instrumentation on for the counted requests only, then the profile dumped and the server stopped.
def measure(pid, url, requests)
  600.times do # booting under valgrind takes minutes for a Rails app
    break if Mallard::Target::HttpProbe.answers?(url.to_s)

    sleep 1
  end
  hammer(url, 300)
  %w[on off].each do |state|
    system("callgrind_control", "-i", state, pid.to_s, out: File::NULL)
    hammer(url, requests) if state == "on"
  end
  system("callgrind_control", "-d", pid.to_s, out: File::NULL)
  Process.kill("TERM", pid)
  Process.wait(pid)
end

base = nil
ENV.fetch("MALLARD_BENCH_VARIANTS", "plain loaded agent agent-0.5").split.each do |variant|
  total = count(variant, Setup.new(app, path, requests, lib, extra_env))
  base ||= total
  puts format("%-14s %6.0f thousand instructions a request  %+.2f%% against plain", variant,
              total / requests / 1000.0, ((total.to_f / base) - 1) * 100)
end

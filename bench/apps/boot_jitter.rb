# frozen_string_literal: true

# Loaded first (RUBYOPT) by bench/agent_paired.rb into both servers of a pair: MALLARD_BENCH_JITTER temporary
# strings, made and dropped before the app boots. Ruby's heap settles at a size that depends on everything
# allocated at boot (the demo app's steady heap: 142 to 164 pages, major GCs 1.8 to 4.6 per 1,000 requests, for
# 100 to 20,000 strings kept or dropped at boot), so one boot of each variant compares two draws of that lottery;
# the same random jitter in both, drawn afresh each round, compares the agent's cost over many.
Array.new(Integer(ENV.fetch("MALLARD_BENCH_JITTER", "0"))) { |index| "jitter #{index}" }

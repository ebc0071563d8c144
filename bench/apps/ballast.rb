# frozen_string_literal: true

# Loaded (RUBYOPT) by bench/agent_instructions.rb's ballast variants: MALLARD_BENCH_BALLAST short strings (one heap
# slot each, about as many live slots as the agent keeps) held for the process's life, from boot on or, with
# MALLARD_BENCH_BALLAST_LATE, from Puma's first connection on: whether what the agent costs an allocation-bound app
# is the slots it keeps or when it takes them.
module Ballast
  SIZE = Integer(ENV.fetch("MALLARD_BENCH_BALLAST", "0"))

  def self.keep
    @keep ||= Array.new(SIZE) { |index| "ballast #{index}" }
  end
end

if ENV["MALLARD_BENCH_BALLAST_LATE"]
  # Prepended to Puma::Server as its class body ends (Puma loads after RUBYOPT's files).
  module BallastAtFirstConnection
    def process_client(...)
      Ballast.keep
      super
    end
  end

  server_defined = TracePoint.new(:end) do |trace|
    next unless trace.self.instance_of?(Class) && trace.self.name == "Puma::Server"

    trace.self.prepend(BallastAtFirstConnection)
    server_defined.disable
  end
  server_defined.enable
else
  Ballast.keep
end

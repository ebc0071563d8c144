# frozen_string_literal: true

require_relative "../agent/switches"

module Mallard
  module Target
    # The environment a subject runs in: the user's, less mallard's own bundler settings (the
    # app has its own Gemfile or none), plus the memory configuration and the agent.
    module SubjectEnvironment
      AGENT_LIB = File.expand_path("../..", __dir__)
      BUNDLER_VARIABLES = %w[BUNDLE_GEMFILE BUNDLE_BIN_PATH BUNDLE_LOCKFILE BUNDLER_SETUP BUNDLER_VERSION
                             BUNDLER_ORIG_RUBYOPT].freeze

      module_function

      # @param allocator_env [Hash] from Allocators::Allocator#env (nil values unset)
      # @param agent [Hash, nil] out:, t0:, interval: (and full_gc_every:) for the in-process agent; nil to leave it out
      # @param requires [Array<String>] from Allocators::Allocator#ruby_requires
      # @param ruby [Hash] SubjectRuby#env: the app's Ruby first on PATH (nothing for mallard's own)
      def build(allocator_env:, agent:, base: ENV, requires: [], ruby: {})
        env = BUNDLER_VARIABLES.to_h { |var| [var, nil] }.merge(ruby)
        env["RUBYOPT"] = rubyopt(base["RUBYOPT"], agent: !agent.nil?, requires: requires)
        env["RUBYLIB"] = without_bundler(base["RUBYLIB"], ":")
        env.merge!(agent_variables(agent)) if agent
        env.merge(allocator_env)
      end

      def rubyopt(user_rubyopt, agent:, requires: [])
        options = without_bundler(user_rubyopt, " ")
        loads = [*("mallard/agent" if agent), *requires].map { |feature| "-r#{feature}" }
        loads.empty? ? options : [%(-I#{AGENT_LIB}), *loads, options].compact.join(" ")
      end

      # The per-GC timeline is on by default (Agent#gc_timeline): a MALLARD_GC_EVENTS of the user's passes through.
      # full_gc_every: the agent's full GCs for an exact live set (Agent::FullGc), when asked for.
      def agent_variables(agent)
        { "MALLARD_AGENT_OUT" => agent.fetch(:out), "MALLARD_T0" => format("%.6f", agent.fetch(:t0)),
          "MALLARD_AGENT_INTERVAL" => agent.fetch(:interval).to_s,
          Agent::Switches::FULL_GC => agent[:full_gc_every]&.to_s }.compact
      end

      def without_bundler(value, separator)
        kept = value.to_s.split(separator).reject { |part| part.include?("bundler") }
        kept.empty? ? nil : kept.join(separator)
      end
    end
  end
end

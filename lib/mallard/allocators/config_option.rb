# frozen_string_literal: true

module Mallard
  module Allocators
    # compare --config NAME=[BASE,]VAR=VALUE[,VAR=VALUE…]: a configuration of any environment on one of the
    # catalog's (glibc unless another is named first): `gc-cap=RUBY_GC_HEAP_GROWTH_FACTOR=1.1` runs glibc with that
    # variable, `je-decay=jemalloc,MALLOC_CONF=dirty_decay_ms:1000,narenas:2` jemalloc with that MALLOC_CONF. A new
    # variable starts where a comma is followed by an upper-case NAME=, so MALLOC_CONF's own commas stay in its value.
    # One setting is code rather than environment, written as a variable is, in lower case: after_boot=warmup or
    # after_boot=compact, a line the app runs once it has booted (AfterBoot), alone (`warm=after_boot=warmup`) or
    # beside variables.
    module ConfigOption
      NAME = /\A[A-Za-z0-9][A-Za-z0-9._+-]*\z/
      VARIABLE = /\A[A-Z_][A-Z0-9_]*\z/
      SPLIT = /,(?=(?:[A-Z_][A-Z0-9_]*|#{AfterBoot::SETTING})=)/
      # The base configuration chooses the allocator's library, and mallard loads its own files through RUBYOPT.
      RESERVED = %w[LD_PRELOAD RUBYOPT].freeze

      module_function

      # @param catalog [Catalog]
      # @return [Allocator] the configuration, named as given
      # @raise [UsageError] a name or a variable it cannot be, or a base the catalog does not have
      def parse(text, catalog)
        name, spec = text.split("=", 2)
        refuse(text, "NAME=[BASE,]VAR=VALUE[,VAR=VALUE…] expected") unless name&.match?(NAME) && spec
        refuse(text, "#{name} is a configuration mallard has already; give this one a name of its own") if
          catalog.names.include?(name)

        pairs = spec.split(SPLIT)
        base = pairs.first.include?("=") ? "glibc" : pairs.shift
        catalog.fetch(base).configured(name, settings(text, pairs))
      end

      def settings(text, pairs)
        refuse(text, "it names no variable to set, nor #{AfterBoot::SETTING}") if pairs.empty?

        pairs.to_h do |pair|
          variable, value = pair.split("=", 2)
          next after_boot(text, value) if variable == AfterBoot::SETTING

          refuse(text, "#{variable} is not an environment variable's name") unless variable.match?(VARIABLE)
          refuse(text, "#{variable} is for the base configuration to set") if RESERVED.include?(variable)
          # Its deploy snippets (Report::DeploySnippets) print the value as it is, unquoted.
          unless value.match?(Report::DeploySnippets::SAFE_VALUE)
            refuse(text, "#{variable}'s value may hold only letters, digits and _.:,/+=-")
          end

          [variable, value]
        end
      end

      def after_boot(text, action)
        return [AfterBoot::SETTING, action] if AfterBoot::CODE.key?(action)

        refuse(text, "#{AfterBoot::SETTING} takes #{AfterBoot::CODE.keys.join(' or ')}, not #{action.inspect}")
      end

      # Why a comparison's rows are refused before any runs: each setting its Ruby or allocator would not take.
      # @param refused [Array(#label + #allocator, Summary::SettingCheck)]
      def refusal(refused)
        said = refused.map do |row, check|
          "#{row.label}: #{check.name}=#{check.value} #{not_taken(check, row.allocator)}"
        end
        "#{said.join('; ')} — nothing was run"
      end

      def not_taken(check, allocator)
        case check.status
        when "deprecated" then "is not read by this Ruby: set #{pools(check.instead)} instead"
        when "ignored" then "is ignored by this Ruby, as #{check.reason}"
        when "invalid" then check.reason ? "has pairs jemalloc rejects: #{check.reason}" : "is no value this Ruby reads"
        when "unread" then unread(check, allocator)
        end
      end

      def unread(check, allocator)
        return missing(check) if check.name == AfterBoot::SETTING
        return "is not read by this Ruby" unless check.name == Probe::SettingsCheck::MALLOC_CONF

        "is read by jemalloc only, and #{allocator.name} runs #{allocator.malloc}"
      end

      # An action after boot this Ruby cannot run, and the one it can.
      def missing(check)
        said = "cannot run in this Ruby: it has no #{AfterBoot::NEEDS.fetch(check.value)}"
        return said unless check.instead

        "#{said}; #{AfterBoot::SETTING}=#{check.instead} (#{AfterBoot.code(check.instead)}) is what it can do"
      end

      # Ruby's "RUBY_GC_HEAP_%d_INIT_SLOTS" as the names to set: one per slot pool (five on 3.3 and 3.4).
      def pools(pattern) = Analysis::GcSettings.per_pool(pattern).values_at(0, -1).uniq.join(" … ")

      def refuse(text, why) = raise(UsageError, "--config #{text}: #{why}")

      private_class_method :settings, :after_boot, :not_taken, :unread, :missing, :pools, :refuse
    end
  end
end

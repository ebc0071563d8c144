# frozen_string_literal: true

require_relative "../trim/availability"

module Mallard
  module Allocators
    # The memory configurations worth trying for a Ruby process, in baseline-first order.
    class Catalog
      include Enumerable

      JEMALLOC = { sonames: %w[libjemalloc.so.2 libjemalloc.so],
                   packages: { debian: "libjemalloc2", alpine: "jemalloc", homebrew: "jemalloc" } }.freeze
      # narenas:2 — fewer arenas shared by more threads (jemalloc's own MALLOC_ARENA_MAX);
      # dirty_decay_ms:1000 — hand freed pages back after 1 s instead of 10 s.
      JEMALLOC_TUNING = "narenas:2,dirty_decay_ms:1000"

      def self.default
        @default ||= new(finder: LibraryFinder.default)
      end

      # @param trim [Trim::Availability] whether glibc-trim's C extension is built here
      # @param production_cpus [Integer, nil] size glibc's arenas as on a host with this many CPUs
      #   (Allocator#for_production); nil: as glibc sizes them here
      def initialize(finder:, trim: Trim::Availability.default, production_cpus: nil)
        @trim = trim
        @entries = definitions.map do |attributes|
          allocator = Allocator.new(finder: finder, **attributes)
          production_cpus ? allocator.for_production(production_cpus) : allocator
        end
      end

      # This catalog and configurations of the user's own (compare --config) after its entries.
      # @param own [Array<Allocator>]
      def including(own)
        own.empty? ? self : dup.append(own)
      end

      # The default catalog, or one whose glibc configurations are sized for a production host.
      def self.for(production_cpus)
        production_cpus ? new(finder: LibraryFinder.default, production_cpus: production_cpus) : default
      end

      def each(&)
        @entries.each(&)
      end

      def names
        map(&:name)
      end

      def fetch(name)
        find { |entry| entry.name == name } ||
          raise(UsageError, "unknown allocator '#{name}'; known: #{names.join(', ')}")
      end

      protected

      def append(own) = tap { @entries += own }

      private

      def definitions
        [
          { name: "glibc", malloc: "glibc", summary: "the C library's malloc, as most Ruby processes run" },
          { name: "glibc-arena2", malloc: "glibc", settings: { "MALLOC_ARENA_MAX" => "2" },
            summary: "glibc with at most 2 arenas: less fragmentation across threads" },
          { name: "glibc-trim", malloc: "glibc", summary: "glibc, with malloc_trim(0) after each major GC",
            requires: "mallard/trim", extension: "mallard/#{Trim::Availability::EXTENSION_NAME}",
            blocked: @trim.reason && "needs mallard's C extension: #{@trim.reason}" },
          { name: "jemalloc", malloc: "jemalloc", summary: "jemalloc, preloaded", **JEMALLOC },
          { name: "jemalloc-tuned", malloc: "jemalloc", settings: { "MALLOC_CONF" => JEMALLOC_TUNING },
            summary: "jemalloc with #{JEMALLOC_TUNING}", **JEMALLOC },
          { name: "tcmalloc", malloc: "tcmalloc", summary: "gperftools' tcmalloc (minimal), preloaded",
            sonames: %w[libtcmalloc_minimal.so.4 libtcmalloc.so.4],
            packages: { debian: "libtcmalloc-minimal4", alpine: "gperftools", homebrew: "gperftools" } },
          { name: "mimalloc", malloc: "mimalloc", summary: "Microsoft's mimalloc, preloaded",
            sonames: %w[libmimalloc.so.2 libmimalloc.so],
            packages: { debian: "libmimalloc2.0", alpine: "mimalloc2", homebrew: "mimalloc" } }
        ]
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Analysis
    # The objects pass's answer (Agent::BootRetained): objects alive after the boot and their memsize_of, by the
    # file whose code allocated them; summed per tree node (a node's own file) and per gem. Empty when the pass
    # did not run: every figure is then nil, not zero.
    class RetainedByFile
      # Objects with no Ruby file were made before the boot (Ruby's own start, the probe) or by C code with no
      # Ruby caller: they are Ruby's.
      NO_FILE = ""

      # @param files [Hash{String => Array(Integer, Integer)}, nil] file => [objects, bytes]
      def initialize(files, owners)
        @files = files
        @owners = owners
      end

      def any? = !@files.nil?

      # @return [Array(Integer, Integer), nil] objects and bytes allocated by this file's own code
      def file(path)
        return unless @files

        @files.fetch(path.to_s, [0, 0])
      end

      # @return [Hash{String => Array(Integer, Integer)}] owner => [objects, bytes]
      def by_owner
        return {} unless @files

        @files.each_with_object(Hash.new { |hash, owner| hash[owner] = [0, 0] }) do |(path, (objects, bytes)), sums|
          sum = sums[path == NO_FILE ? FileOwners::RUBY : @owners.owner(path)]
          sum[0] += objects
          sum[1] += bytes
        end
      end

      def total
        return unless @files

        @files.values.transpose.map(&:sum)
      end
    end
  end
end

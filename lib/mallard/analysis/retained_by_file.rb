# frozen_string_literal: true

module Mallard
  module Analysis
    # The objects pass's answer (BootProbe::Retained): objects alive after the boot and their memsize_of, by the
    # file whose code allocated them; summed per tree node (a node's own file) and per gem. Empty when the pass
    # did not run: every figure is then nil, not zero.
    class RetainedByFile
      # @param pass [Run::BootRepeat, nil] the objects pass, whose retained is { file => [objects, bytes] }
      def initialize(pass, owners)
        @files = pass&.retained && loaded_files(pass)
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
          sum = sums[@owners.owner(path)]
          sum[0] += objects
          sum[1] += bytes
        end
      end

      def total
        return unless @files

        @files.values.transpose.map(&:sum)
      end

      private

      # What a file's loading made inside the C require is filed under the loader named after the required name:
      # it goes to the file that name loaded (a require of a file already loaded makes next to nothing).
      def loaded_files(pass)
        loaded = pass.requires.select(&:loaded).to_h { |record| ["#{pass.loader}#{record.name}", record.file] }
        sums = Hash.new { |hash, file| hash[file] = [0, 0] }
        pass.retained.each_with_object(sums) do |(file, (objects, bytes)), sum_of|
          sum = sum_of[pass.loader && file.start_with?(pass.loader) ? loaded.fetch(file, file) : file]
          sum[0] += objects
          sum[1] += bytes
        end
      end
    end
  end
end

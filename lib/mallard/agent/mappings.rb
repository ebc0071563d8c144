# frozen_string_literal: true

module Mallard
  module Agent
    # What only this process's mappings say, for the memory ledger (Ledger), from one pass over /proc/self/smaps: the
    # resident and proportional size (RSS, PSS) of its stacks and of Ruby's transient heap, its proportional size in all
    # and of its file-backed mappings. PSS splits each page shared with other processes (a forked Puma worker's
    # copy-on-write pages, the code of shared libraries) among them, so the workers' PSS add up to what they really take
    # together.
    #
    # A stack is the main thread's [stack], or a private writable anonymous mapping that starts right above a
    # small inaccessible one: the guard page pthread_create (and Ruby's fiber pool) puts below each stack. A glibc
    # arena heap can sit above one too (the last pages of the reserve of the heap below it), but it starts at a
    # 64 MiB boundary, where a stack starts only by chance.
    #
    # Ruby 3.1 and 3.2 keep young arrays', hashes' and objects' buffers in a transient heap: one anonymous mapping of
    # exactly 32 MiB (transient_heap.c's TRANSIENT_HEAP_TOTAL_SIZE), mapped outside malloc, whose blocks are reused
    # and never returned, so its resident pages are its high-water mark (4.5 MB of a Rails app's and of the demo
    # app's RSS, which no other part counted). Where none is mapped (Ruby 3.3 removed it) its figures are absent.
    #
    # Cost: the kernel walks every page table to fill smaps, about 2 ms of CPU for an 80 MB process, and parsing
    # it as much again, so it is read only with the ledger's coarse readings.
    module Mappings
      PATH = "/proc/self/smaps"
      # The parts that move slowly, the stacks and the transient heap (a high-water mark): a ledger reading between
      # two mappings readings carries the last ones.
      CARRIED = %w[stacks_kb stacks_pss_kb transient_heap_kb transient_heap_pss_kb].freeze
      TRANSIENT_HEAP_BYTES = 32 * 1024 * 1024
      GUARD_MAX = 65_536
      ARENA_ALIGN = 64 * 1024 * 1024
      # A mapping's header line and, a few lines on, its Rss and Pss: one pass of one pattern over the text, so a
      # reading allocates per mapping, not per line (a per-line parse cost 9 ms of CPU, this 2–3).
      MAPPING = /^(\h+)-(\h+) (\S{4}) \S+ \S+ (\d+) *([^\n]*)\n(?:[A-Z][^\n]*\n)*?Rss: +(\d+) kB\nPss: +(\d+)/

      module_function

      # @return [Hash{String=>Integer}, nil] parse's; nil where smaps cannot be read (a kernel without it)
      def read(path = PATH)
        parse(File.binread(path))
      rescue SystemCallError
        nil
      end

      # @param text [String] a process's smaps (this one's, or another's read by Probe::Sampler)
      # @return [Hash{String=>Integer}] stacks_kb, stacks_pss_kb, pss_kb, file_pss_kb; transient_heap_kb and
      #   transient_heap_pss_kb where there is one
      def parse(text)
        totals = { "stacks_kb" => 0, "stacks_pss_kb" => 0, "pss_kb" => 0, "file_pss_kb" => 0 }
        guard_end = nil
        text.scan(MAPPING) do |mapping|
          kind, guard_end = classify(mapping, guard_end)
          add(totals, kind, rss: mapping[5].to_i, pss: mapping[6].to_i)
        end
        totals
      end

      # [:stack | :transient_heap | :file | :anon, the end address of this mapping when it is a guard (for the
      # next), else nil]
      # @param mapping [Array<String>] MAPPING's captures: start, end, perms, inode, name, Rss, Pss
      def classify(mapping, guard_end)
        start, finish = mapping[0, 2].map { |address| address.to_i(16) }
        perms, inode, name = mapping[2, 3]
        return [:file, nil] unless inode == "0"
        return [:anon, finish] if perms == "---p" && finish - start <= GUARD_MAX

        return [:stack, nil] if stack?(name, perms, start, guard_end)

        [transient_heap?(name, perms, finish - start) ? :transient_heap : :anon, nil]
      end

      def stack?(name, perms, start, guard_end)
        return true if name.start_with?("[stack]")

        perms == "rw-p" && name.empty? && start == guard_end && (start % ARENA_ALIGN).nonzero?
      end

      def transient_heap?(name, perms, size) = perms == "rw-p" && name.empty? && size == TRANSIENT_HEAP_BYTES

      def add(totals, kind, rss:, pss:)
        totals["pss_kb"] += pss
        totals["file_pss_kb"] += pss if kind == :file
        return unless %i[stack transient_heap].include?(kind)

        prefix = kind == :stack ? "stacks" : "transient_heap"
        totals["#{prefix}_kb"] = totals["#{prefix}_kb"].to_i + rss
        totals["#{prefix}_pss_kb"] = totals["#{prefix}_pss_kb"].to_i + pss
      end

      private_class_method :classify, :stack?, :transient_heap?, :add
    end
  end
end

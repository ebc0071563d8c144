# frozen_string_literal: true

module Mallard
  module Probe
    # Resident memory of one process, in KB, as the kernel accounts it:
    # RSS counts shared pages in full, PSS divides them among their sharers, USS is what only
    # this process holds (what killing it would free).
    MemoryReading = Struct.new(:rss_kb, :pss_kb, :uss_kb, :swap_kb, keyword_init: true) do
      # Parses smaps_rollup, or the per-mapping smaps (its records are summed).
      def self.parse(text)
        totals = Hash.new(0)
        text.each_line do |line|
          key, value = line.split(":", 2)
          totals[key] += Integer(value[/\d+/]) if value&.match?(/\A\s*\d+ kB/)
        end
        new(rss_kb: totals["Rss"], pss_kb: totals["Pss"],
            uss_kb: totals["Private_Clean"] + totals["Private_Dirty"], swap_kb: totals["Swap"])
      end

      def self.of(proc_files)
        parse(proc_files.smaps_summary)
      end
    end
  end
end

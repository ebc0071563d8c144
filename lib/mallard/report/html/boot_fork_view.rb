# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Workers forked after the boot (--workers), each after one GC: what RSS says of a worker against what it
      # costs (PSS), how much it still shares with its master, and what master and workers spend together.
      class BootForkView < View
        # @param fork [Summary::BootFork]
        def initialize(fork)
          super()
          @fork = fork
        end

        template <<~'ERB'
          <p>RSS counts every shared page in every process that maps it; PSS divides each among them, so PSS
          summed over the processes is what the machine spends.</p>
          <%= Figures.new(rows) %>
        ERB

        private

        def rows
          [["Workers", @fork.workers], ["Master", "RSS #{mib(@fork.master_rss_kb)}, PSS #{mib(@fork.master_pss_kb)}"],
           ["A worker (median)", "RSS #{mib(@fork.worker_rss_kb)}, PSS #{mib(@fork.worker_pss_kb)}"],
           ["Still shared with the master", shared], ["A worker's own pages", mib(@fork.private_kb)],
           ["Copied on write", mib(@fork.copy_on_write_kb)],
           ["A worker's PSS", "file-backed #{mib(@fork.pss_file_kb)}, anonymous #{mib(@fork.pss_anon_kb)}"],
           ["Master and workers together", "#{mib(@fork.total_pss_kb)} PSS; RSS would count " \
                                           "#{mib(@fork.total_rss_kb)}"]]
        end

        def shared
          pct = @fork.shared_pct && format(" (%.0f%% of its pages)", @fork.shared_pct)
          "#{mib(@fork.shared_kb)}#{pct}"
        end
      end
    end
  end
end

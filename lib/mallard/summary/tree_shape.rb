# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # One process of a tree as doctor read it (Analysis::TreeShape): its role ("master", "worker 0", "mold",
    # "child"), its parent, the pool threads it runs (Puma's; 0 elsewhere), and its memory in KiB. shared_kb is what
    # it shares with other processes (RSS less USS: the pages a fork left shared, and the libraries every process
    # maps); shared_pct that as a part of its RSS.
    TreeProcess = Value.define(:pid, :parent, :role, :title, :pool_threads, :rss_kb, :pss_kb, :uss_kb, :shared_kb,
                               :shared_pct)

    # A server's process tree as doctor read it: its server ("puma", "pitchfork", nil when neither titled it), the
    # workers it runs and the pool threads of each, and its memory: pss_kb summed over every process (what the tree
    # holds, each shared page once), uss_kb summed (what only one process holds), shared_kb the difference (the
    # shared pages, counted once). worker_uss_kb: the median worker's USS, what one more worker would add at this
    # point of its life; worker_shared_pct: the median worker's shared part of its RSS.
    TreeShape = Value.define(:server, :workers, :threads, :pss_kb, :uss_kb, :shared_kb, :worker_uss_kb,
                             :worker_shared_pct, processes: [TreeProcess])
  end
end

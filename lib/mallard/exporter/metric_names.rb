# frozen_string_literal: true

module Mallard
  module Exporter
    # The names of the families that are read back, in one place: Exposition writes them and `mallard fleet` asks
    # Prometheus for them (Probe::FleetQuery), so the two cannot drift apart.
    module MetricNames
      MALLOC_IN_USE = "ruby_malloc_in_use_bytes"
      # The memory ledger's parts, one series per part, its name (Analysis::LedgerParts) in this label.
      MEMORY_PART = "ruby_memory_part_bytes"
      PART_LABEL = "part"
      # The tree's memory cgroup, one series per kind: the label's value and the key of Probe::CgroupMemory#read.
      CONTAINER_MEMORY = "ruby_container_memory_bytes"
      # The conditions a lab's run is set against (fleet --expect).
      CPUS = "ruby_process_cpus"
      POOL_THREADS = "ruby_puma_pool_threads"
      RUBY = "ruby_version"
      # Requests served by the tree, by method and path (Exporter::RequestCounts): a counter, its samples _total.
      HTTP_REQUESTS = "ruby_http_requests"
      CONTAINER_KINDS = { "current" => :usage_kb, "anon" => :anon_kb, "file" => :file_kb, "peak" => :peak_kb,
                          "limit" => :limit_kb }.freeze

      module_function

      # A process's memory from /proc: rss, pss, uss or swap, in bytes.
      def process_memory(member) = "ruby_process_#{member}_bytes"
    end
  end
end

# frozen_string_literal: true

require_relative "../value"
require_relative "../run/meta"

module Mallard
  module Summary
    # Where a boot's memory is, in KiB: file-backed RSS (code and data mapped from files, shared by forked
    # workers) and anonymous RSS, which is Ruby's heap (live slots × slot size) plus malloc in use (beyond Ruby's
    # heap pages; nil where the allocator gives no reading) plus what neither explains (free slots, malloc's
    # free-but-held memory and bookkeeping, thread stacks, other mappings). file + heap + malloc + unexplained is
    # the whole: unexplained is that remainder, shown.
    BootParts = Value.define(:file_kb, :anon_kb, :heap_kb, :malloc_kb, :unexplained_kb)

    # The whole boot: RSS after it (after a full GC, less the probe's own code), median over the repeats with
    # its 95% interval and the repeats' values; baseline_kb: Ruby itself before the first require; growth_kb
    # what the boot added to that; memsize_kb ObjectSpace.memsize_of_all after the boot; objects allocated
    # during the boot (the hook's own subtracted), and retained (live after it, from the objects pass).
    BootTotal = Value.define(:rss_kb, :ci, :values, :half_width_pct, :baseline_kb, :growth_kb, :memsize_kb,
                             :objects, :retained_objects, :retained_kb, parts: BootParts)

    # One require: the file it loaded and everything that file required first (inclusive, as derailed shows it),
    # median KiB over the repeats with a 95% interval; uncertain when that interval includes zero. self_kb what
    # remains without its children; objects allocated (inclusive); retained_objects and memsize_kb: objects
    # still alive after the boot that this file's own code allocated, and their memsize_of (objects pass);
    # also_required_by: files that required it after it was loaded; hidden: children below the cutoff, their
    # count and summed RSS.
    BootNode = Value.define(:name, :file, :gem, :rss_kb, :ci, :uncertain, :self_kb, :objects, :retained_objects,
                            :memsize_kb, :repeats, :also_required_by, :hidden, :children, parts: BootParts)

    class BootNode
      # children are BootNodes too, which Value.define cannot name before the class exists.
      def self.from_h(hash)
        node = super
        node&.with(children: Array(node.children).map { |child| from_h(child) })
      end
    end

    # A gem's share of the boot: the self figures of every file it loaded, summed; the same for "ruby" (Ruby
    # itself before the first require, and its standard library), "app" (the app's own files), "other", and
    # "(outside requires)" (what the boot did between requires).
    BootGem = Value.define(:name, :version, :rss_kb, :ci, :values, :uncertain, :objects, :retained_objects,
                           :memsize_kb, :files, parts: BootParts)

    # After fork (--workers): each worker's RSS and PSS once it has run a GC, medians over workers and repeats;
    # shared_kb what it still shares with the master (clean and dirty), private_kb its own pages, shared_pct
    # their ratio; pss_file_kb and pss_anon_kb split its PSS into file-backed and anonymous memory; total_pss_kb
    # master and workers together, what the machine really spends, against total_rss_kb, what RSS would claim.
    BootFork = Value.define(:workers, :master_rss_kb, :master_pss_kb, :worker_rss_kb, :worker_pss_kb,
                            :shared_kb, :private_kb, :shared_pct, :pss_file_kb, :pss_anon_kb, :copy_on_write_kb,
                            :total_pss_kb, :total_rss_kb)

    # A failed repeat: its number and why.
    BootFailure = Value.define(:repeat, :reason, :where)

    # The probe stopped reading malloc per require after a slow reading (glibc's mallinfo2 walks every free chunk),
    # reading it only for the total: in how many repeats, of how many, and the first one's own words for it.
    MallocStopped = Value.define(:repeats, :of, :first)

    # `mallard boot`: what an app's boot costs, repeated and decomposed. status complete | interrupted | failed.
    # malloc_note: why the allocator gives no count, in the probe's words (an older summary.json also put here the
    # sentence that malloc_stopped's data now says).
    Boot = Value.define(:kind, :schema_version, :status, :cause, :reason, :app, :mode, :environment, :allocator,
                        :ruby, :malloc, :malloc_note, :repeats, :cutoff_kb, :methodology, :probe_kb, :objects_pass,
                        :reading,
                        failures: [BootFailure], total: BootTotal, tree: [BootNode], gems: [BootGem],
                        fork: BootFork, target: Run::TargetInfo, malloc_stopped: MallocStopped) do
      def complete? = status == "complete"
      def outcome = Run::Outcome.new(status: status, cause: cause, reason: reason)
    end
  end
end

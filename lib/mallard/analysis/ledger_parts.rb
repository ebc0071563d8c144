# frozen_string_literal: true

module Mallard
  module Analysis
    # One process's RSS split into parts from one ledger reading (Run::LedgerRecord), in KiB:
    # - ruby live objects: live slots × slot size;
    # - ruby free slots: the rest of Ruby's heap pages (free slots, page headers);
    # - ruby transient heap: the resident part of Ruby 3.1 and 3.2's transient heap, young objects' buffers in a
    #   32 MiB mapping of its own outside malloc (Agent::Mappings finds it); nil where the Ruby has none;
    # - malloc in use: bytes malloc has handed out beyond Ruby's heap pages;
    # - malloc held free: memory the allocator keeps after the app freed it (MALLOC_HELD: glibc's fordblks, the
    #   free chunks in its arenas; jemalloc's resident minus allocated, dirty and metadata pages; tcmalloc's heap
    #   minus allocated minus unmapped, its page heap and caches); nil where the allocator cannot say (mimalloc);
    # - file-backed: code and other mapped files (shared by forked workers);
    # - stacks: the threads' and fibers' stacks (the pages they have touched);
    # - YJIT code: its code region, where YJIT runs;
    # - unexplained: RSS minus all of the above (the VM's own mappings, what an allocator does not report), shown,
    #   never hidden: the parts always add up to RSS.
    # An allocator's counts can exceed what is resident: jemalloc's stats.resident is a maximum that counts pages it
    # has mapped and never touched (a process of 12 MiB RSS, 4 MiB of it anonymous, had 10.2 MiB "resident"), and
    # bytes handed out but never written take no RSS. So malloc in use and then malloc held free are each capped at
    # the RSS the other parts leave, and not_read says by how much the allocator overcounted.
    #
    # The same parts in PSS (pss), where pages shared with other processes (a forked worker's copy-on-write pages,
    # shared libraries) count a share each: file-backed, stacks and the transient heap as the mappings say; the parts
    # measured inside the process (Ruby's heap, malloc, YJIT), which no mapping names, at the process's anonymous
    # memory's PSS to RSS ratio, pro rata; unexplained, what is left of the process's PSS.
    module LedgerParts
      LIVE = "ruby live objects"
      FREE_SLOTS = "ruby free slots"
      TRANSIENT = "ruby transient heap"
      MALLOC = "malloc in use"
      HELD = "malloc held free"
      FILE = "file-backed"
      STACKS = "stacks"
      YJIT = "YJIT code"
      UNEXPLAINED = "unexplained"
      NAMES = [LIVE, FREE_SLOTS, TRANSIENT, MALLOC, HELD, FILE, STACKS, YJIT, UNEXPLAINED].freeze
      # The parts read inside the process, from anonymous memory no mapping tells apart.
      ANONYMOUS = [LIVE, FREE_SLOTS, MALLOC, HELD, YJIT].freeze
      # What the app holds (retention when it grows), and what the allocator holds for it (fragmentation or
      # settling when it grows under a flat app-held line: what another allocator can win). Ruby's own
      # reserves, its free slots and its transient heap's high-water mark (at most 32 MiB), are in neither.
      APP_HELD = [LIVE, MALLOC].freeze
      ALLOCATOR_HELD = [HELD].freeze

      # Bytes an allocator holds free, from its own statistics, by allocator.
      MALLOC_HELD = {
        "glibc" => ->(stats) { stats["mallinfo2.fordblks"] },
        "jemalloc" => lambda { |stats|
          stats["stats.resident"] && stats["stats.allocated"] && (stats["stats.resident"] - stats["stats.allocated"])
        },
        "tcmalloc" => lambda { |stats|
          heap, used, unmapped = stats.values_at("generic.heap_size", "generic.current_allocated_bytes",
                                                 "tcmalloc.pageheap_unmapped_bytes")
          heap && used && (heap - used - unmapped.to_i)
        }
      }.freeze

      module_function

      # @param record [Run::LedgerRecord]
      # @return [Hash{String=>Integer, nil}] KiB by part name, in NAMES order
      def call(record)
        known = { LIVE => record.ruby_live_kb, FREE_SLOTS => free_slots(record), TRANSIENT => record.transient_heap_kb,
                  MALLOC => nil, HELD => nil, FILE => record.file_kb, STACKS => record.stacks_kb,
                  YJIT => record.yjit_kb }
        left = record.rss_kb.to_i - known.values.compact.sum
        known[MALLOC], known[HELD], left = capped([record.malloc_in_use_kb, held_kb(record)], left)
        known.merge(UNEXPLAINED => left)
      end

      # The allocator's parts, each at most what is left of RSS: [malloc in use, held free, what is left after].
      def capped(counts, left)
        parts = counts.map do |kb|
          next unless kb

          [kb, [left, 0].max].min.tap { |part| left -= part }
        end
        [*parts, left]
      end

      # KiB the allocator counted beyond the RSS its parts could have (see above); 0 when none.
      def overcounted_kb(record)
        rss = call(record)
        [record.malloc_in_use_kb, held_kb(record)].compact.sum - rss.values_at(MALLOC, HELD).compact.sum
      end

      # The parts in PSS (see above); nil for a reading without its mappings' PSS.
      # @return [Hash{String=>Integer, nil}, nil]
      def pss(record)
        return unless record.pss_kb

        rss = call(record)
        share = anonymous_share(record)
        known = ANONYMOUS.to_h { |name| [name, rss[name] && (rss[name] * share).round] }
                         .merge(FILE => record.file_pss_kb, STACKS => record.stacks_pss_kb,
                                TRANSIENT => record.transient_heap_pss_kb)
        NAMES.to_h { |name| [name, known[name]] }.merge(UNEXPLAINED => record.pss_kb - known.values.compact.sum)
      end

      # The PSS of the process's anonymous memory that no mapping names (neither file-backed, stacks nor the transient
      # heap) over its RSS.
      def anonymous_share(record)
        anon_rss = record.rss_kb.to_i - record.file_kb.to_i - record.stacks_kb.to_i - record.transient_heap_kb.to_i
        anon_pss = record.pss_kb - record.file_pss_kb.to_i - record.stacks_pss_kb.to_i -
                   record.transient_heap_pss_kb.to_i
        anon_rss.positive? ? anon_pss.fdiv(anon_rss) : 1.0
      end

      # What this reading's allocator cannot report, in words; nil when it reports everything.
      def not_read(record)
        return record.malloc_note if record.malloc_in_use_kb.nil?
        return "#{record.allocator} does not say how much it holds free" unless held_kb(record)

        over = overcounted_kb(record)
        return unless over >= 1024

        format("%<allocator>s counted %<mib>.1f MiB more than RSS had room for (pages it has but the process never " \
               "touched), left out of its parts", allocator: record.allocator, mib: over / 1024.0)
      end

      def free_slots(record)
        return unless record.ruby_pages_kb && record.ruby_live_kb

        [record.ruby_pages_kb - record.ruby_live_kb, 0].max
      end

      def held_kb(record)
        bytes = MALLOC_HELD[record.allocator]&.call(record.malloc || {})
        bytes && (bytes / 1024.0).round
      end

      private_class_method :free_slots, :held_kb, :anonymous_share, :capped, :overcounted_kb
    end
  end
end

# frozen_string_literal: true

require_relative "readings"
require_relative "metric_names"

module Mallard
  module Exporter
    # The metrics of a process tree as text, in either of the two formats Prometheus reads: OpenMetrics 1.0 (what
    # Prometheus asks for when it scrapes) or the older text format 0.0.4 (curl, `promtool check metrics`, other
    # scrapers). They differ in naming only: OpenMetrics names a counter's family without the _total its sample
    # carries, has an info type and # UNIT lines, and ends with # EOF. Formatting only: the figures come in a
    # Snapshot per process.
    class Exposition
      OPEN_METRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"
      TEXT = "text/plain; version=0.0.4; charset=utf-8"

      # One process's figures at a scrape: memory from /proc (KiB, Probe::MemoryReading), its own readings
      # (Readings), its allocator as doctor detects it (Allocators::Detection, nil when unreadable), and, for the
      # tree's root alone, the memory cgroup it sits in (Probe::CgroupMemory#read: KiB; nil elsewhere or unreadable);
      # the conditions it runs in, as a lab would set them (ProcessConditions: the CPUs it may run on, Puma's pool
      # threads in it, its Ruby's version and whether YJIT is on); and, for the root alone, the requests the tree
      # served (RequestTotals#sum).
      Snapshot = Struct.new(:pid, :role, :memory, :readings, :allocator, :container, :conditions, :requests,
                            keyword_init: true)

      # name, type, unit (nil: none), help, and how a snapshot gives its samples: a number, nil (no sample), or
      # [[labels, number], ...].
      Family = Struct.new(:name, :type, :unit, :help, :samples)

      KIB = 1024

      def self.memory(member, help)
        Family.new(MetricNames.process_memory(member), "gauge", "bytes", help,
                   ->(snapshot) { snapshot.memory&.public_send(:"#{member}_kb")&.*(KIB) })
      end

      def self.reading(name, type, key, help, unit: nil, scale: 1)
        Family.new(name, type, unit, help, ->(snapshot) { snapshot.readings[key]&.*(scale) })
      end

      def self.gc_runs(snapshot)
        %w[minor major].filter_map do |kind|
          count = snapshot.readings["gc.#{kind}_gc_count"]
          [{ "kind" => kind }, count] if count
        end
      end

      def self.malloc_statistics(snapshot)
        snapshot.readings.filter_map do |key, value|
          [{ "stat" => key.delete_prefix(Readings::MALLOC_PREFIX) }, value] if key.start_with?(Readings::MALLOC_PREFIX)
        end
      end

      def self.memory_parts(snapshot)
        snapshot.readings.filter_map do |key, value|
          [{ MetricNames::PART_LABEL => Readings.part_name(key) }, value] if key.start_with?(Readings::PART_PREFIX)
        end
      end

      # The cgroup's charge by kind; a kind the kernel does not give (v1 has no anon split on some kernels) or a
      # limit not set is no sample.
      def self.container_memory(snapshot)
        container = snapshot.container or return
        MetricNames::CONTAINER_KINDS.filter_map do |kind, key|
          value = container[key]
          [{ "kind" => kind, "cgroup" => container[:path].to_s }, value * KIB] if value
        end
      end

      def self.container_oom_kills(snapshot)
        container = snapshot.container
        container && container[:oom_kills] && [[{ "cgroup" => container[:path].to_s }, container[:oom_kills]]]
      end

      def self.requests(snapshot)
        snapshot.requests&.map do |key, count|
          method, path = RequestCounts.split(key)
          [{ "method" => method, "path" => path }, count]
        end
      end

      def self.condition(key) = ->(snapshot) { snapshot.conditions&.fetch(key, nil) }

      def self.ruby(snapshot)
        conditions = snapshot.conditions
        conditions && [[{ "version" => conditions[:ruby].to_s, "yjit" => conditions[:yjit].to_s }, 1]]
      end

      def self.allocator(snapshot)
        found = snapshot.allocator
        found && [[{ "allocator" => found.name.to_s, "via" => found.via.to_s, "library" => found.path.to_s }, 1]]
      end

      FAMILIES = [
        memory("rss", "Resident set size: every page of the process in RAM, shared ones counted in full " \
                      "(summed over forked workers it overcounts)."),
        memory("pss", "Proportional set size: resident pages, each shared page divided among its sharers " \
                      "(sums to the tree's real use)."),
        memory("uss", "Unique set size: resident pages no other process shares (what ending it would free)."),
        memory("swap", "Bytes of the process swapped out."),
        Family.new("ruby_gc_runs", "counter", nil, "Garbage collections since the process started, by kind " \
                                                   "(GC.stat minor_gc_count, major_gc_count).", method(:gc_runs)),
        reading("ruby_gc_time_seconds", "counter", "gc.time", "Time spent in garbage collection (GC.stat time).",
                unit: "seconds", scale: 0.001),
        reading("ruby_gc_heap_live_slots", "gauge", "gc.heap_live_slots",
                "Live Ruby objects (GC.stat heap_live_slots)."),
        reading("ruby_gc_old_objects", "gauge", "gc.old_objects",
                "Objects promoted to the old generation (GC.stat old_objects)."),
        reading("ruby_gc_heap_allocated_pages", "gauge", "gc.heap_allocated_pages",
                "Pages of the Ruby object heap (GC.stat heap_allocated_pages)."),
        reading(MetricNames::MALLOC_IN_USE, "gauge", "malloc_in_use",
                "Bytes the C allocator has handed out and not freed (jemalloc stats.allocated, glibc mallinfo2 " \
                "uordblks + hblkhd, tcmalloc generic.current_allocated_bytes).", unit: "bytes"),
        Family.new("ruby_malloc_stat_bytes", "gauge", "bytes", "The allocator's own statistics, by its own names " \
                                                               "(glibc mallinfo2.*, jemalloc stats.*, tcmalloc).",
                   method(:malloc_statistics)),
        Family.new(MetricNames::MEMORY_PART, "gauge", "bytes",
                   "RSS in the parts of mallard's memory ledger: #{Analysis::LedgerParts::NAMES.join(', ')}.",
                   method(:memory_parts)),
        reading("ruby_malloc_trims", "counter", "trims", "malloc_trim(0) calls by mallard/trim (glibc-trim)."),
        Family.new(MetricNames::CONTAINER_MEMORY, "gauge", "bytes",
                   "The memory cgroup the tree sits in, as the kernel charges it and a container's OOM killer counts " \
                   "it (every process of the cgroup, page cache included), on the master alone: kind current, anon, " \
                   "file (page cache), peak (its high-water mark) and limit (none set: no sample).",
                   method(:container_memory)),
        Family.new("ruby_container_oom_kills", "counter", nil, "Processes the OOM killer ended in the tree's memory " \
                                                               "cgroup (memory.events oom_kill; v1 oom_control).",
                   method(:container_oom_kills)),
        Family.new(MetricNames::CPUS, "gauge", nil, "CPUs the process may run on (its affinity: /proc/PID/status " \
                                                    "Cpus_allowed_list).", condition(:cpus)),
        Family.new(MetricNames::POOL_THREADS, "gauge", nil, "Threads of Puma's pool in the process (named puma srv " \
                                                            "tp 001…); 0 outside Puma's workers.",
                   condition(:pool_threads)),
        Family.new(MetricNames::HTTP_REQUESTS, "counter", nil,
                   "Requests Puma's processes served since the tree started, summed over them (the master alone), " \
                   "by method and path (a segment of digits, long hex or a UUID as :id; past " \
                   "#{RequestCounts::MAX_PATHS} paths, other).", method(:requests)),
        Family.new(MetricNames::RUBY, "info", nil, "The Ruby the process runs: its version, and whether YJIT is on.",
                   method(:ruby)),
        Family.new("ruby_allocator", "info", nil, "The malloc the process really runs, as `mallard doctor` reads it " \
                                                  "from /proc/PID/maps: allocator, via (preloaded, linked, default) " \
                                                  "and library path.", method(:allocator))
      ].freeze

      # @param snapshots [Array<Snapshot>]
      # @param open_metrics [Boolean] OpenMetrics 1.0, else the text format 0.0.4
      def initialize(snapshots, open_metrics: true)
        @snapshots = snapshots
        @open_metrics = open_metrics
      end

      def content_type = @open_metrics ? OPEN_METRICS : TEXT

      def render
        text = +""
        FAMILIES.each { |family| render_family(text, family) }
        text << "# EOF\n" if @open_metrics
        text
      end

      private

      def render_family(text, family)
        samples = @snapshots.flat_map { |snapshot| samples_of(family, snapshot) }
        return if samples.empty?

        name = declared_name(family)
        text << "# TYPE #{name} #{declared_type(family)}\n"
        text << "# UNIT #{name} #{family.unit}\n" if @open_metrics && family.unit
        text << "# HELP #{name} #{escape_help(family.help)}\n"
        samples.each { |labels, value| text << "#{sample_name(family)}{#{labels_text(labels)}} #{number(value)}\n" }
      end

      def samples_of(family, snapshot)
        found = family.samples.call(snapshot)
        own = { "pid" => snapshot.pid.to_s, "role" => snapshot.role.to_s }
        case found
        when nil then []
        when Numeric then [[own, found]]
        else found.map { |labels, value| [own.merge(labels), value] }
        end
      end

      def declared_name(family)
        @open_metrics ? family.name : sample_name(family)
      end

      def declared_type(family)
        family.type == "info" && !@open_metrics ? "gauge" : family.type
      end

      def sample_name(family)
        case family.type
        when "counter" then "#{family.name}_total"
        when "info" then "#{family.name}_info"
        else family.name
        end
      end

      def labels_text(labels)
        labels.map { |key, value| %(#{key}="#{escape_label(value)}") }.join(",")
      end

      def escape_label(value)
        value.to_s.gsub("\\", "\\\\\\\\").gsub("\n", "\\n").gsub('"', '\\"')
      end

      def escape_help(text)
        text.gsub("\\", "\\\\\\\\").gsub("\n", "\\n")
      end

      def number(value)
        value.is_a?(Integer) ? value.to_s : value.to_f.to_s
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Analysis
    # The three-dump method on streamed dumps: what was allocated between dump A and dump B and is still alive in
    # dump C is what the app keeps, by allocation site, gem and class.
    #
    # With allocation tracing every object carries its generation (the GC count when it was allocated), so "after
    # A, up to B" is a window of generations. An object in that window that C still holds was alive at B too, so C
    # alone answers, and A and B are read only for their newest generations: no set of addresses is kept, and each
    # dump is streamed once. mallard's own dumps close a generation with a GC just before each dump, which makes
    # the window exact; for dumps given to `heap diff` it runs from after the newest generation in A to the newest
    # in B, and misses what was allocated after A within A's own last generation (at most one GC's worth).
    module HeapRetention
      METHOD = "Three dumps, A B C, taken with allocation tracing on: objects allocated after dump A and up to dump " \
               "B (by GC generation) that dump C still holds, grouped by allocation site (file:line, and class), " \
               "gem and class; bytes are ObjectSpace.memsize_of. Each dump is streamed once and never held."
      # A site keeps a significant amount once it holds this much, or 1% of the last dump's bytes if more.
      SIGNIFICANT_FLOOR = 256 * 1024
      SIGNIFICANT_SHARE = 0.01
      TOP = 100
      # Sites explained by a sample reference path: each costs passes over the last dump (Run::HeapPaths).
      PATHS = 3
      GENERATION_BUCKETS = 40
      GEM_DIR = %r{\A(.*/gems/(?:[^/]+/)?(?:gems/)?([^/]+?)-(\d[^/]*))/}
      # mallard's own agent runs inside the app (its recorder, its dumper): what it allocates is not the app's.
      OWN_CODE = File.join(File.expand_path("../..", __dir__), "")

      module_function

      # @param dumps [#size, #scan] a reader of the dumps in the order they were taken (Run::HeapDumps)
      # @param gems [Array(String, String, Array<String>), nil] loaded gems and their directories, when known
      # @param app_dir [String, nil]
      # @return [Hash] Summary::Heap members
      # @raise [FailedMeasurement] fewer than three dumps, dumps without allocation tracing, or out of order
      # @param generations [Array(Integer, Integer), nil] the first generation allocated after dump A, and the GC
      #   count after the GC closing dump B's last generation (mallard's own dumps, Agent::HeapDumper): the window
      #   is then exact
      def call(dumps, gems: nil, app_dir: nil, ruby_dirs: [], generations: nil)
        raise FailedMeasurement, "the three-dump method needs three dumps; there are #{dumps.size}" if dumps.size < 3

        first, second = [0, 1].map { |index| dumps.scan(index) }
        window = generations ? generations[0]..(generations[1] - 1) : window(first, second)
        last = dumps.scan(dumps.size - 1, window: window)
        owners = FileOwners.new(gems: gems || gems_in_paths(last.sites.keys.map(&:first)), ruby_dirs: ruby_dirs,
                                app_dir: app_dir)
        figures = figures(last, window, owners)
        with_paths(figures[:sites], dumps, window, last)
        figures.merge(analysis: analysis([first, second, last], dumps),
                      dumps: [first, second, last].map { |scan| info(scan) })
      end

      def window(first, second)
        untraced = [first, second].reject(&:traced?)
        unless untraced.empty?
          raise FailedMeasurement, "#{untraced.first.path} holds no allocation info: call " \
                                   "ObjectSpace.trace_object_allocations_start before the first dump"
        end
        if second.max_generation <= first.max_generation
          raise FailedMeasurement, "#{second.path} is not newer than #{first.path} (generation " \
                                   "#{second.max_generation} against #{first.max_generation}): give the dumps in " \
                                   "the order they were taken, from one process"
        end

        (first.max_generation + 1)..second.max_generation
      end

      def figures(last, window, owners)
        sites = sites(last, owners)
        threshold = [SIGNIFICANT_FLOOR, SIGNIFICANT_SHARE * last.generations.values.sum(&:last)].max
        { window: { "from" => window.begin - 1, "to" => window.end }, sites: sites.first(TOP).map do |site|
          site.merge(significant: site[:bytes] >= threshold)
        end, significant_bytes: threshold.round, retained_count: sites.sum { |site| site[:count] },
          retained_bytes: sites.sum { |site| site[:bytes] }, gems: grouped(sites, :gem),
          classes: grouped(sites, :class), generations: generations(last.generations), methodology: METHOD }
      end

      def sites(last, owners)
        own = last.sites.select { |(file, _, _), _| file&.start_with?(OWN_CODE) }
        sites = last.sites.except(*own.keys).map do |(file, line, klass), (count, bytes)|
          { site: file ? "#{file}:#{line}" : "(no file)", file: file, line: line,
            class: last.class_name(klass), gem: file ? owners.owner(file) : FileOwners::OTHER,
            count: count, bytes: bytes }
        end
        sites.sort_by { |site| [-site[:bytes], site[:site]] }
      end

      def grouped(sites, key)
        groups = sites.group_by { |site| site[key] }.map do |name, members|
          { name: name, count: members.sum { |site| site[:count] }, bytes: members.sum { |site| site[:bytes] } }
        end
        groups.sort_by { |group| -group[:bytes] }
      end

      # The last dump's objects by generation, in at most GENERATION_BUCKETS ranges of equal width (each named by
      # its newest generation).
      def generations(histogram)
        return [] if histogram.empty?

        low, high = histogram.keys.minmax
        width = [((high - low + 1) / GENERATION_BUCKETS.to_f).ceil, 1].max
        buckets = histogram.group_by { |generation, _| low + ((((generation - low) / width) + 1) * width) - 1 }
        buckets.sort.map do |generation, members|
          { generation: [generation, high].min, count: members.sum { |_, (count, _)| count },
            bytes: members.sum { |_, (_, bytes)| bytes } }
        end
      end

      # The top significant sites with a file: the ones a path is looked for.
      def explained(sites)
        sites.select { |site| site[:significant] && site[:file] }.first(PATHS).map { |site| [site[:file], site[:line]] }
      end

      def with_paths(sites, dumps, window, last)
        paths = dumps.reference_paths(dumps.size - 1, explained(sites), window)
        sites.each do |site|
          steps = paths[[site[:file], site[:line]]]
          site[:path] = steps&.map { |step| describe(step, last) }
        end
      end

      def describe(step, last)
        return "GC root: #{step.root}" if step.root

        name = if %w[CLASS MODULE].include?(step.type)
                 "#{step.type.downcase} #{last.class_name(step.address)}"
               else
                 last.classes.key?(step.class_address) ? last.class_name(step.class_address) : step.type
               end
        step.file ? "#{name} (#{step.file}:#{step.line})" : name.to_s
      end

      # One pass over each dump: their bytes over the time those passes took (the reference paths' passes are
      # timed apart, in paths_s), as the reader measured them.
      def analysis(scans, dumps)
        seconds = scans.sum(&:seconds)
        bytes = scans.sum(&:bytes)
        { mb_per_s: seconds.positive? ? bytes / 1e6 / seconds : nil, seconds: seconds, bytes: bytes,
          paths_s: dumps.paths_seconds, peak_rss_kb: dumps.peak_rss_kb }
      end

      def info(scan)
        { path: scan.path, bytes: scan.bytes, objects: scan.objects, max_generation: scan.max_generation }
      end

      # Dumps given to `heap diff` come without the app's gem list: a file under .../gems/NAME-VERSION/ is NAME's.
      def gems_in_paths(files)
        files.compact.filter_map { |file| file.match(GEM_DIR)&.captures }.uniq.map do |dir, name, version|
          [name, version, [dir]]
        end
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Analysis
    # BootSummary's figures: the total, the merged tree, the per-gem rollup and the after-fork sharing, each a
    # median over the repeats' BootTrees (KiB) with its interval.
    module BootFigures
      KIB = 1024.0

      module_function

      # @param trees [Array<BootTree>] one per complete repeat
      # @param repeats [Array<Run::BootRepeat>] the same repeats
      # @param retained [RetainedByFile]
      def total(trees, repeats, retained)
        values = trees.map { |tree| tree.root.figures[:rss] / KIB }
        baseline = trees.map { |tree| tree.root.children.first.figures[:rss] / KIB }
        Summary::BootTotal.new(**estimate(values).except(:uncertain), **retained_figures(retained.total),
                               **whole_boot(trees, repeats),
                               half_width_pct: half_width_pct(values), baseline_kb: median(baseline),
                               growth_kb: median(values.zip(baseline).map { |total, base| total - base }),
                               parts: parts(trees.map(&:root), :figures))
      end

      def whole_boot(trees, repeats)
        { memsize_kb: median(repeats.map { |repeat| repeat.memsize && (repeat.memsize / KIB) }),
          objects: median(trees.map { |tree| tree.root.figures[:objects] })&.round }
      end

      def retained_figures((objects, bytes))
        { retained_objects: objects, retained_kb: bytes && (bytes / KIB) }
      end

      # The merged tree below the root, cut at cutoff_kb: a child whose median RSS is below it is counted in its
      # parent's hidden, and its cost stays in the parent's inclusive figure.
      def tree(trees, retained, cutoff_kb)
        merged_children(trees.map(&:root), retained, cutoff_kb).first
      end

      # Self figures summed by owner in each repeat, then merged like nodes.
      def gems(trees, retained)
        per_repeat = trees.map { |tree| owner_sums(tree) }
        by_owner = retained.by_owner
        owners = per_repeat.flat_map(&:keys).uniq
        owners.map { |owner| gem(owner, per_repeat, by_owner, trees.first.owners) }.sort_by { |gem| -gem.rss_kb }
      end

      # Medians over every worker of every repeat that forked.
      def fork(repeats)
        forks = repeats.filter_map(&:fork)
        return if forks.empty?

        workers = forks.flat_map { |reading| reading["workers"] }
        masters = forks.map { |reading| reading["master"] }
        count = forks.first["workers"].size
        fork_figures(masters, workers, count)
      end

      def fork_figures(masters, workers, count)
        worker = ->(*keys) { median(workers.map { |reading| keys.sum { |key| reading[key].to_i } }) }
        master = ->(key) { median(masters.map { |reading| reading[key] }) }
        shared = worker.call("shared_clean_kb", "shared_dirty_kb")
        rss = worker.call("rss_kb")
        pss = worker.call("pss_kb")
        Summary::BootFork.new(
          workers: count, master_rss_kb: master.call("rss_kb"), master_pss_kb: master.call("pss_kb"),
          worker_rss_kb: rss, worker_pss_kb: pss, shared_kb: shared,
          private_kb: worker.call("private_clean_kb", "private_dirty_kb"),
          shared_pct: 100.0 * shared / [rss, 1].max, pss_file_kb: worker.call("pss_file_kb"),
          pss_anon_kb: worker.call("pss_anon_kb"), copy_on_write_kb: worker.call("shared_dirty_kb"),
          **together(master.call("pss_kb"), master.call("rss_kb"), count, pss, rss)
        )
      end

      # Master and workers together: what the machine spends (PSS) and what RSS would claim.
      def together(master_pss, master_rss, count, pss, rss)
        { total_pss_kb: master_pss + (count * pss), total_rss_kb: master_rss + (count * rss) }
      end

      # Nodes at one level across the repeats, by key, in the order they first appear.
      def merged_children(parents, retained, cutoff_kb)
        by_key = parents.flat_map(&:children).group_by(&:key)
        merged = by_key.values.map { |nodes| merged_node(nodes, retained, cutoff_kb) }
        shown, hidden = merged.partition { |node| node.rss_kb.abs >= cutoff_kb }
        [shown.sort_by { |node| -node.rss_kb }, hidden]
      end

      def merged_node(nodes, retained, cutoff_kb)
        children, hidden = merged_children(nodes, retained, cutoff_kb)
        objects, bytes = subtree_retained(retained.file(nodes.first.file), children + hidden)
        Summary::BootNode.new(
          name: nodes.first.name, file: nodes.first.file, gem: nodes.first.owner, **node_estimate(nodes),
          objects: median(nodes.map { |node| node.figures[:objects] })&.round, retained_objects: objects,
          memsize_kb: bytes && (bytes / KIB), repeats: nodes.size,
          also_required_by: nodes.flat_map(&:also_required_by).uniq, parts: parts(nodes, :figures),
          hidden: hidden.empty? ? nil : { "count" => hidden.size, "rss_kb" => hidden.sum(&:rss_kb) },
          children: children
        )
      end

      def node_estimate(nodes)
        values = nodes.map { |node| node.figures[:rss] / KIB }
        estimate(values).except(:values).merge(self_kb: median(nodes.map { |node| node.self_figures[:rss] / KIB }))
      end

      # A node's retained objects: its own file's, and its children's (which include theirs).
      def subtree_retained(own, children)
        return [nil, nil] unless own

        [own[0] + children.sum { |child| child.retained_objects.to_i },
         own[1] + children.sum { |child| child.memsize_kb.to_f * KIB }]
      end

      def owner_sums(tree)
        sums = Hash.new { |hash, owner| hash[owner] = Hash.new(0) }
        tree.each_node do |node|
          owner = node.owner || (node.name == BootTree::BASELINE ? FileOwners::RUBY : node.name)
          node.self_figures.each { |figure, value| sums[owner][figure] = add(sums[owner][figure], value) }
          sums[owner][:files] += 1 if node.file
        end
        sums
      end

      def gem(owner, per_repeat, by_owner, owners)
        sums = per_repeat.map { |repeat| repeat.fetch(owner, nil) }.compact
        values = sums.map { |sum| sum[:rss] / KIB }
        objects, bytes = by_owner[owner]
        Summary::BootGem.new(name: owner, version: owners.version(owner), **estimate(values),
                             objects: median(sums.map { |sum| sum[:objects] })&.round,
                             retained_objects: by_owner.empty? ? nil : objects.to_i,
                             memsize_kb: by_owner.empty? ? nil : bytes.to_i / KIB,
                             files: sums.first[:files], parts: parts(sums, nil))
      end

      # Medians of each part over the repeats; unexplained is what the median RSS leaves after the others.
      # @param sources [Array<BootTree::Node, Hash>] nodes (figures read through member) or figure hashes
      def parts(sources, member)
        figures = sources.map { |source| member ? source.public_send(member) : source }
        medians = PART_FIGURES.transform_values { |figure| median(figures.map { |f| f[figure] && (f[figure] / KIB) }) }
        rss = median(figures.map { |f| f[:rss] / KIB })
        explained = medians[:file_kb].to_f + medians[:heap_kb].to_f + medians[:malloc_kb].to_f
        Summary::BootParts.new(**medians, unexplained_kb: rss && (rss - explained))
      end

      PART_FIGURES = { file_kb: :file, anon_kb: :anon, heap_kb: :heap, malloc_kb: :malloc }.freeze

      # The median, the interval, and whether the interval includes zero (nil without one: one repeat).
      def estimate(values)
        bounds = Statistics.mean_ci(values)
        { rss_kb: median(values), ci: bounds, values: values, uncertain: bounds && bounds[0] <= 0 && bounds[1] >= 0 }
      end

      def half_width_pct(values)
        ci = Statistics.mean_ci(values)
        center = median(values)
        ci && center&.positive? ? 100.0 * (ci[1] - ci[0]) / 2 / center : nil
      end

      def add(left, right)
        left.nil? || right.nil? ? nil : left + right
      end

      def median(values)
        Statistics.median(values.compact)
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Analysis
    # One repeat's require tree, with each node's figures: what changed between the start and the end reading of
    # its require (inclusive: the files it required first are part of it, as derailed shows it), and what is
    # left without its children (self). The root is the whole boot: RSS after it (after a full GC) less the
    # probe's own code, whose children are Ruby itself before the first require (BASELINE), the top-level
    # requires, and what happened between requires (OUTSIDE). Inclusive figures nest exactly, so the self figures
    # of all nodes add up to the root.
    class BootTree
      # Figures: bytes of RSS, file-backed and anonymous RSS, Ruby heap, malloc; objects allocated.
      FIGURES = %i[rss file anon heap malloc objects].freeze
      BASELINE = "(ruby before the first require)"
      OUTSIDE = "(outside requires)"
      ROOT = "(boot)"

      Node = Struct.new(:key, :name, :file, :owner, :figures, :self_figures, :children, :also_required_by,
                        keyword_init: true)

      attr_reader :root, :owners

      # @param repeat [Run::BootRepeat] complete
      # @param owners [FileOwners] shared by the repeats of one run (they loaded the same gems), else the repeat's
      def initialize(repeat, owners: nil)
        @repeat = repeat
        @owners = owners || FileOwners.new(gems: repeat.gems, ruby_dirs: repeat.ruby_dirs, app_dir: repeat.app_dir)
        @root = build
      end

      # Every node under the root, depth first.
      def each_node(node = @root, &)
        node.children.each do |child|
          yield child
          each_node(child, &)
        end
      end

      private

      def build
        root = node(ROOT, ROOT, nil, total_figures)
        root.children << node(BASELINE, BASELINE, nil, baseline_figures)
        loaded, repeated = @repeat.requires.partition(&:loaded)
        by_id = { 0 => root }
        loaded.sort_by(&:id).each { |record| by_id[record.id] = attach(by_id, record) }
        by_id.delete(0)
        note_also_required(root, by_id, repeated)
        root.children << node(OUTSIDE, OUTSIDE, nil, outside_figures(root))
        finish_self(root)
        root
      end

      # A parent's record is written after its children's (a require ends after those it made), so records are
      # attached in id order, the order the requires began.
      def attach(by_id, record)
        parent = by_id[record.parent] || by_id[0]
        name = @owners.display(record.name)
        child = node(unique_key(parent, name), name, record.file, record_figures(record))
        parent.children << child
        child
      end

      def unique_key(parent, name)
        key = "#{parent.key}\u0000#{name}"
        taken = parent.children.count { |child| child.key.start_with?(key) }
        taken.zero? ? key : "#{key}##{taken + 1}"
      end

      def node(key, name, file, figures)
        Node.new(key: key, name: name, file: file, owner: file && @owners.owner(file), figures: figures,
                 children: [], also_required_by: [])
      end

      def record_figures(record)
        start = record.start
        finish = record.finish
        { rss: finish.rss - start.rss, file: finish.file - start.file, anon: finish.anon - start.anon,
          heap: finish.heap - start.heap, malloc: difference(finish.malloc, start.malloc),
          objects: finish.objects - start.objects - record.hook_objects.to_i }
      end

      # The probe's own code is anonymous memory (its objects and the malloc behind them) in Ruby's baseline.
      def total_figures
        finish = @repeat.finish
        probe = @repeat.probe_bytes.to_i
        { rss: finish.rss - probe, file: finish.file, anon: finish.anon - probe, heap: finish.heap,
          malloc: finish.malloc, objects: finish.objects - @repeat.start.objects - @repeat.hook_objects.to_i }
      end

      def baseline_figures
        start = @repeat.start
        probe = @repeat.probe_bytes.to_i
        { rss: start.rss - probe, file: start.file, anon: start.anon - probe, heap: start.heap, malloc: start.malloc,
          objects: 0 }
      end

      def outside_figures(root)
        FIGURES.to_h do |figure|
          [figure, root.children.reduce(root.figures[figure]) { |left, child| difference(left, child.figures[figure]) }]
        end
      end

      # Files that asked for a file already loaded, named on the node that loaded it (found by the name it was
      # required by, as derailed does).
      def note_also_required(root, by_id, repeated)
        by_name = {}
        each_node(root) { |node| by_name[node.name] ||= node }
        repeated.each do |record|
          target = by_name[@owners.display(record.name)]
          requirer = record.parent.zero? ? ROOT : by_id[record.parent]&.name
          next unless target && requirer && requirer != target.name

          target.also_required_by << requirer unless target.also_required_by.include?(requirer)
        end
      end

      def finish_self(node)
        node.children.each { |child| finish_self(child) }
        node.self_figures = FIGURES.to_h do |figure|
          [figure, node.children.reduce(node.figures[figure]) { |left, child| difference(left, child.figures[figure]) }]
        end
      end

      def difference(left, right)
        left && right ? left - right : nil
      end
    end
  end
end

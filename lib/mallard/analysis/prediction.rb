# frozen_string_literal: true

module Mallard
  module Analysis
    # What a comparison predicted for a configuration: its memory change against the comparison's baseline, as the
    # comparison's own table has it (Summary::Compare's config vs_baseline), its ledger's parts against the
    # baseline's, and what its runs ran in — taken once when a fleet run starts, so the fleet run keeps it. Pure.
    module Prediction
      module_function

      # @param compare [Summary::Compare]
      # @param config [String, nil] the row named; nil for the comparison's recommendation
      # @param run [String] where the comparison is, as given
      # @param meta [Run::Meta] the comparison's meta.json: its CPUs and Ruby
      # @return [Summary::Prediction]
      # @raise [UsageError] no such row, no recommendation to take, or the baseline itself
      def call(compare, config:, run:, meta: Run::Meta.new)
        name = config || recommended(compare, run)
        row = configuration(compare, name, run)
        baseline = compare.baseline || compare.configs.first.name
        raise UsageError, "#{name} is #{run}'s baseline: there is no change to expect of it" if name == baseline

        Summary::Prediction.new(run: run, config: name, baseline: baseline, metric: compare.metric,
                                chosen_by: config ? "given" : "recommendation", **change(row.vs_baseline),
                                ledger_kb: part_changes(row, compare.configs.find { |one| one.name == baseline }),
                                conditions: conditions(compare, compare.rows.find { |one| one.name == name }, meta,
                                                       rate(row)))
      end

      def recommended(compare, run)
        name = compare.recommendation&.name
        return name if name

        raise UsageError, "#{run} recommends no configuration (it kept the baseline): name one, --expect RUN:CONFIG"
      end

      def configuration(compare, name, run)
        compare.configs.find { |candidate| candidate.name == name } ||
          raise(UsageError, "#{run} has no configuration #{name} (it has #{compare.configs.map(&:name).join(', ')})")
      end

      def change(versus)
        { pct: versus&.rss_pct, ci: versus&.rss_pct_ci, finding: versus&.rss_finding }
      end

      # The ledger's parts, the row's less the baseline's, where both kept one.
      def part_changes(row, baseline)
        mine = row.ledger_kb
        theirs = baseline&.ledger_kb
        return unless mine && theirs

        mine.filter_map { |part, kb| [part, kb - theirs[part]] if kb && theirs[part] }.to_h
      end

      # What the configuration's runs ran in: its row's Ruby, YJIT, shape and allocator where it set them, else the
      # comparison's own; the request mix its load's paths made and its trees on the host (itself and its --neighbours,
      # meta.json's options); the rate it served (its runs' median req/s, for a tree) and the requests a run served at
      # that rate.
      def conditions(compare, row, meta, rate)
        ruby = row&.ruby || {}
        Summary::Conditions.new(ruby: ruby["version"] || ruby_version(meta), yjit: yjit(row&.yjit),
                                cpus: compare.cpu_layout&.subject&.size || meta.cpus,
                                **counts(row&.shape, meta.puma || {}),
                                malloc: ruby["allocator_linked"] || malloc(row&.allocator), rate: rate,
                                **loaded(meta.options || {}, rate))
      end

      # What the runs' options say of their load: its paths' request mix, the trees on the host, and the requests a
      # run served: its rate over its load's seconds, or its --requests where those ended it first.
      def loaded(options, rate)
        served = [options["requests"], (rate * options["duration"] if rate && options["duration"])].compact.min
        { trees_per_host: 1 + options["neighbours"].to_i, mix: RequestMix.of_paths(options["paths"]),
          served: served&.round }
      end

      # A configuration's runs' median req/s (a tree's), to a tenth.
      def rate(config) = config.rps&.median&.round(1)

      def ruby_version(meta) = meta.subject_ruby&.fetch("version", nil) || meta.ruby.to_s[/\d+\.\d+\.\d+/]

      # --yjit's "on", "off" or a code region's size; nil where the row did not set it.
      def yjit(mode) = mode && mode != "off"

      # A shape's workers and threads, else what the comparison's target was served with (nil in older runs).
      def counts(label, puma)
        shape = label && PumaShape.parse(label)
        { threads: shape&.threads || puma["threads"], workers: shape&.workers || puma["workers"] }
      end

      def malloc(name)
        name && Allocators::Catalog.default.fetch(name).malloc
      rescue UsageError
        nil # a configuration this catalog no longer has
      end

      private_class_method :recommended, :configuration, :change, :part_changes, :conditions, :rate, :ruby_version,
                           :yjit, :counts, :malloc, :loaded
    end
  end
end

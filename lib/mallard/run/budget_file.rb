# frozen_string_literal: true

require "json"

module Mallard
  module Run
    # The committed budget file (`mallard-budget.json` in the app): per entry, the paths its soaks load and, per figure
    # guarded, the allowance it may rise by and the baseline's repeated values (every repeat's, not one number), kept
    # from the main branch. Read and checked before anything starts (a bad file is a usage error naming the file), and
    # written back only by `mallard budget --update`. A run keeps a copy as budget.json, so `report` recomputes it.
    class BudgetFile
      VERSION = 1
      NAME = "mallard-budget.json"
      DEFAULT_ALLOWANCE_PCT = 5.0
      # Steady memory's allowance is wider: builds cannot be interleaved, and the steady PSS of 3-second soaks of one
      # build moved between sessions by up to 14% (3 of 42 real A/A pairs on this machine came out over +5%; none
      # over +10%). Allocations and the live set moved by under 1%.
      ALLOWANCES = { "steady_pss_kb" => 10.0 }.freeze

      # One entry: name (the path loaded, by default), paths, and figures: name => { "max_increase_pct", "baseline" }.
      Entry = Struct.new(:name, :paths, :figures, keyword_init: true)

      attr_reader :entries

      # @raise [UsageError] naming the file when it is missing, not JSON, or not a budget
      def self.read(path)
        from_h(JSON.parse(File.read(path)), path)
      rescue SystemCallError => e
        raise UsageError, "cannot read the budget file #{path}: #{e.message} (make one with --update)"
      rescue JSON::ParserError => e
        raise UsageError, "the budget file #{path} is not JSON: #{e.message.lines.first.strip}"
      end

      def self.from_h(hash, source = "budget.json")
        entries = hash.is_a?(Hash) && hash["entries"]
        raise UsageError, "the budget file #{source} has no entries list" unless entries.is_a?(Array) && entries.any?

        new(entries.map { |entry| entry(entry, source) })
      end

      # A figure's allowance when the file or --max-increase does not give one.
      def self.allowance(name) = ALLOWANCES.fetch(name, DEFAULT_ALLOWANCE_PCT)

      # A budget with one entry per path and every figure unbudgeted yet (no baseline).
      # @param allowance_pct [Numeric, nil] every figure's allowance (--max-increase); nil: each figure's own
      def self.fresh(paths, allowance_pct, names)
        figures = names.to_h do |name|
          [name, { "max_increase_pct" => allowance_pct || allowance(name), "baseline" => [] }]
        end
        new(paths.map { |path| Entry.new(name: path, paths: [path], figures: figures) })
      end

      def self.entry(hash, source)
        name = hash.is_a?(Hash) && hash["name"]
        raise UsageError, "the budget file #{source} has an entry without a name" unless name.is_a?(String)

        paths = hash["paths"] || [name]
        unless paths.is_a?(Array) && paths.any? && paths.all? { |path| path.is_a?(String) && path.start_with?("/") }
          raise UsageError, "the budget file #{source}: entry #{name}'s paths must be a list of paths such as /"
        end

        Entry.new(name: name, paths: paths, figures: figures(hash["figures"], "#{source}: entry #{name}"))
      end

      def self.figures(hash, where)
        raise UsageError, "the budget file #{where} has no figures" unless hash.is_a?(Hash) && hash.any?

        hash.to_h { |name, guard| [name, guard(guard, allowance(name), "#{where}, #{name}")] }
      end

      # A figure's allowance must be a positive % and its baseline positive values.
      def self.guard(hash, default, where)
        allowance = hash.is_a?(Hash) ? hash.fetch("max_increase_pct", default) : nil
        raise UsageError, "the budget file #{where}: max_increase_pct must be a positive number" \
          unless allowance.is_a?(Numeric) && allowance.positive?

        baseline = hash.fetch("baseline", [])
        raise UsageError, "the budget file #{where}: baseline must be a list of positive numbers" \
          unless baseline.is_a?(Array) && baseline.all? { |value| value.is_a?(Numeric) && value.positive? }

        { "max_increase_pct" => allowance, "baseline" => baseline }
      end

      private_class_method :entry, :figures, :guard

      def initialize(entries)
        @entries = entries.freeze
        freeze
      end

      # The same budget with each figure's baseline replaced by the values measured now, where there are some.
      # @param measured [Hash] entry name => { figure name => [values] }
      def with_baselines(measured)
        BudgetFile.new(entries.map do |entry|
          values = measured.fetch(entry.name, {})
          figures = entry.figures.to_h do |name, guard|
            [name, values[name]&.any? ? guard.merge("baseline" => values[name]) : guard]
          end
          entry.to_h.merge(figures: figures).then { |members| Entry.new(**members) }
        end)
      end

      def to_h
        { "version" => VERSION, "entries" => entries.map { |entry| entry.to_h.transform_keys(&:to_s) } }
      end

      # Written whole and renamed into place, so a stopped --update leaves the old file.
      def write(path)
        temporary = "#{path}.tmp"
        File.write(temporary, "#{JSON.pretty_generate(to_h)}\n")
        File.rename(temporary, path)
      rescue SystemCallError => e
        raise WriteFailed, "cannot write the budget file #{path}: #{e.message}"
      end
    end
  end
end

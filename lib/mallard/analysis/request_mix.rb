# frozen_string_literal: true

module Mallard
  module Analysis
    # The request mix, production's and a lab's, and what a lab's load can take of production's (compare --like,
    # fleet --expect). Production's comes from the exporter's counters (Exporter::RequestCounts) as a rate per
    # method and path; a lab's load sends GETs, round-robin over its paths, so a path given twice is sent twice as
    # often. Pure.
    module RequestMix
      # A path under this share of production's requests is not worth its place in the load's rotation.
      MIN_SHARE = 0.01
      # Shares differing by less than this are the same mix (production's rates over a window, rounded into a load).
      ALIKE = 0.05
      # The rotation's resolution: one slot a 1% share.
      SLOTS = 100
      GET = "GET"
      Taken = Struct.new(:mix, :left, keyword_init: true)

      module_function

      # @param series [Array<Run::FleetSeries>] the mix's query: one series per method and path, rates at its points
      # @return [Array<Summary::RequestShare>] each method and path's mean rate over the window as a share
      def of_series(series)
        rates = Array(series).to_h do |one|
          values = one.points.map(&:last)
          [[one.labels["method"], one.labels["path"]], values.empty? ? 0.0 : values.sum / values.size]
        end
        shares(rates)
      end

      # @param paths [Array<String>] a lab's load's paths, repeats included
      # @return [Array<Summary::RequestShare>]
      def of_paths(paths) = shares(Array(paths).map { |path| [GET, path] }.tally)

      # What a lab's load can send of production's mix: the GETs of paths as they are, each of at least MIN_SHARE,
      # their shares made whole again; and what it leaves, by reason.
      # @param mix [Array<Summary::RequestShare>] production's
      # @return [Taken] mix: [Summary::RequestShare], left: [Summary::MixLeft]
      def take(mix)
        reasons = mix.group_by { |share| left_because(share) }
        kept = reasons.delete(nil) || []
        left = reasons.map do |reason, shares|
          Summary::MixLeft.new(reason: reason, share: shares.sum(&:share).round(4))
        end
        Taken.new(mix: shares(kept.to_h { |share| [[share.method, share.path], share.share] }), left: left)
      end

      # The paths a load rotates through for a mix: each repeated as its share asks (largest remainders of SLOTS),
      # the counts divided by their greatest common divisor, interleaved so that no path comes in a long run.
      # @return [Array<String>]
      def rotation(mix)
        counts = slots(mix)
        divisor = counts.values.reduce(0) { |gcd, count| gcd.gcd(count) }
        smooth(counts.transform_values { |count| count / divisor })
      end

      # The method and path whose shares differ most between lab and production, where that is ALIKE or more.
      # @return [Summary::ConditionGap, nil]
      def gap(lab, production)
        return if Array(lab).empty? || Array(production).empty?

        mine = by_key(lab)
        theirs = by_key(production)
        key = (mine.keys | theirs.keys).max_by { |one| (mine.fetch(one, 0.0) - theirs.fetch(one, 0.0)).abs }
        lab_share = mine.fetch(key, 0.0)
        production_share = theirs.fetch(key, 0.0)
        return if (lab_share - production_share).abs < ALIKE

        Summary::ConditionGap.new(name: "mix", path: key, lab: lab_share, production: production_share)
      end

      def shares(weights)
        total = weights.values.sum.to_f
        return [] unless total.positive?

        found = weights.filter_map do |(method, path), weight|
          Summary::RequestShare.new(method: method, path: path, share: (weight / total).round(4)) if weight.positive?
        end
        found.sort_by { |share| [-share.share, share.path.to_s] }
      end

      def left_because(share)
        return "method" unless share.method == GET
        return "other" unless share.path.to_s.start_with?("/")
        return "id" if share.path.split("/").include?(":id")

        "small" if share.share < MIN_SHARE
      end

      def slots(mix)
        exact = mix.to_h { |share| [share.path, share.share * SLOTS / mix.sum(&:share)] }
        counts = exact.transform_values { |value| [value.floor, 1].max }
        spare = SLOTS - counts.values.sum
        exact.sort_by { |path, value| [counts[path] - value, path] }.first([spare, 0].max)
             .each { |path, _| counts[path] += 1 }
        counts
      end

      # Smooth weighted round-robin (nginx's): each turn every path gains its weight, the one ahead is sent and
      # loses the total.
      def smooth(weights)
        total = weights.values.sum
        credit = weights.transform_values { 0 }
        Array.new(total) do
          weights.each { |path, weight| credit[path] += weight }
          path = credit.max_by { |one, value| [value, -weights.keys.index(one)] }.first
          credit[path] -= total
          path
        end
      end

      def by_key(mix) = mix.to_h { |share| ["#{share.method} #{share.path}", share.share] }

      private_class_method :shares, :left_because, :slots, :smooth, :by_key
    end
  end
end

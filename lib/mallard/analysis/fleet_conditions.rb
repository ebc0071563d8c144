# frozen_string_literal: true

module Mallard
  module Analysis
    # What a fleet's processes ran in, from the exporter's condition series (fleet --expect fetches them for B): each
    # series' last point, as a process is now. The CPUs and Puma's pool threads are the median over the processes
    # (the pool's over the processes that run one: a master runs none); the Ruby, YJIT and the malloc the label most
    # of them carry; the workers per tree, the processes the exporter labels workers over those it labels masters (a
    # master serves every process of its tree; nil where the selector holds no master); the request mix, each method and
    # path's mean rate over the window as a share (RequestMix); the rate, each tree's busiest minute in the window
    # (memory follows the busiest load a process serves, not its mean), the median over the trees; the requests each
    # tree had served at the window's end, the median over the trees; the trees on one host (the exporters at its
    # address, any selector's: the fleet's other half shares the host too), the median over the hosts B runs on.
    # Pure.
    module FleetConditions
      module_function

      # @param conditions [Hash{String=>Array<Run::FleetSeries>}] Run::FleetRun#conditions
      # @return [Summary::Conditions, nil] nil without any
      def call(conditions)
        return if conditions.nil? || conditions.empty?

        yjit = most(conditions["ruby"], "yjit")
        Summary::Conditions.new(cpus: level(conditions["cpus"]), threads: level(conditions["threads"], &:positive?),
                                ruby: most(conditions["ruby"], "version"), yjit: yjit && yjit == "true",
                                malloc: most(conditions["malloc"], "allocator"), workers: workers(conditions["cpus"]),
                                mix: RequestMix.of_series(conditions["mix"]), rate: busiest(conditions["rate"]),
                                served: level(conditions["served"], &:positive?),
                                trees_per_host: trees_per_host(conditions["cpus"], conditions["trees"]))
      end

      # Each exporter serves one tree, at its host's address and a port of its own: on each host B's processes run on,
      # the trees every exporter there serves (B's own where the run kept no such series: one stored before it did),
      # the median over those hosts.
      def trees_per_host(selected, every)
        mine = instances(selected)
        everyone = every ? instances(every) | mine : mine
        counts = mine.map { |instance| host(instance) }.uniq.map do |address|
          everyone.count { |instance| host(instance) == address }
        end
        Statistics.median(counts)&.round
      end

      def instances(series) = Array(series).filter_map { |one| one.labels["instance"] }.uniq

      def host(instance) = instance.sub(/:\d+\z/, "")

      def busiest(series)
        peaks = Array(series).filter_map { |one| one.points.map(&:last).max }
        Statistics.median(peaks.select(&:positive?))&.round(1)
      end

      def workers(series)
        roles = Array(series).map { |one| one.labels["role"] }.tally
        masters = roles["master"].to_i
        (roles["worker"].to_f / masters).round if masters.positive?
      end

      def level(series, &keep)
        values = Array(series).filter_map { |one| one.points.last&.last }
        values = values.select(&keep) if keep
        Statistics.median(values)&.round
      end

      def most(series, label) = Array(series).filter_map { |one| one.labels[label] }.tally.max_by(&:last)&.first

      private_class_method :workers, :level, :most, :busiest, :trees_per_host, :instances, :host
    end
  end
end

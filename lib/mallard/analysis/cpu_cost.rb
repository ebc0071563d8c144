# frozen_string_literal: true

module Mallard
  module Analysis
    # The subject's CPU time per unit of work: user + system time of its whole process tree (children it reaped
    # included, Probe::CpuTime) across the load window, over the requests the load tool counted or the jobs the
    # agent saw finish. It does not move with the load tool or a noisy neighbour the way req/s does: those take
    # CPU time from the app, they do not add to the time the app spends on a request.
    #
    # The kernel counts CPU time in ticks (10 ms each, per process), so a window of a few hundred milliseconds of
    # CPU gives a coarse figure; cpu_s is kept beside it to show how much time the figure stands on.
    module CpuCost
      module_function

      # @param run [Run::SoakRun]
      # @param units [Integer, nil] requests served, or jobs finished, in the load window
      # @return [Hash] { cpu_s:, ms_per_unit: } (nil values when there is no window or no work)
      def call(run, units)
        readings = run.load_totals.select { |sample| sample.cpu_s.is_a?(Numeric) }
        return { cpu_s: nil, ms_per_unit: nil } if readings.size < 2

        cpu_s = (readings.last.cpu_s - readings.first.cpu_s).round(3)
        per_unit = (1000.0 * cpu_s / units).round(4) if units.to_i.positive? && cpu_s.positive?
        { cpu_s: cpu_s, ms_per_unit: per_unit }
      end
    end
  end
end

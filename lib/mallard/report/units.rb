# frozen_string_literal: true

require_relative "../analysis/significance"

module Mallard
  module Report
    # Figures as the views print them.
    module Units
      private

      # A change against the baseline: "−12.3% (−15.0 … −9.5)" when it is significant (Significance), else
      # what the interval does say — a point estimate alone would read as a finding.
      def change(pct, interval, significant)
        return "—" if pct.nil?
        return no_change(interval) unless significant

        format("%+.1f%% (%+.1f … %+.1f)", pct, *interval)
      end

      def no_change(interval)
        return "no detectable difference" unless Analysis::Significance.within_noise?(interval)

        format("not clear of ±%g%% noise", Analysis::Significance::NOISE_PCT)
      end

      # Memory in MB (of 1,024 KB, as /proc counts), "—" when unknown.
      def mb(kb)
        kb ? format("%.1f MB", kb / 1024.0) : "—"
      end
    end
  end
end

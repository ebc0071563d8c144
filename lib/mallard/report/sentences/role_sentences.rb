# frozen_string_literal: true

module Mallard
  module Report
    # A job backend's memory per role (Summary::RolePart), worded once for SoakSentences: per role, its processes,
    # its steady PSS, how it went from the first tick to the last, and its peak. Empty for a run without roles.
    class RoleSentences
      include Formatting

      # @param roles [Array<Summary::RolePart>, nil]
      def initialize(roles)
        @roles = Array(roles)
      end

      def roles = @roles.map { |role| role_line(role) }

      # What the figures are, said once beside them (nil without roles).
      def basis
        return if @roles.empty?

        "PSS per role: each process's role by the title its backend gives it, the PSS of its processes summed at " \
          "each tick (the roles add up to the tree's); steady is the median over the steady window."
      end

      def all = [*roles, basis].compact

      private

      def role_line(role)
        format("%<role>s (%<processes>s): %<steady>s steady, %<first>s at the first tick, %<last>s at the last, " \
               "peak %<peak>s",
               role: role.role, processes: role.processes == 1 ? "1 process" : "#{role.processes} processes",
               steady: role.steady_pss_kb ? mib(role.steady_pss_kb) : "no steady window",
               first: mib(role.first_pss_kb), last: mib(role.last_pss_kb), peak: mib(role.peak_pss_kb))
      end
    end
  end
end

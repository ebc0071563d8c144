# frozen_string_literal: true

module Mallard
  module Analysis
    # The conditions a lab's run and production's processes are known to differ in (Summary::Conditions' members),
    # one rule for fleet --expect and compare --like. The request mix differs where one method and path's share does
    # by RequestMix::ALIKE or more (the largest such); the rate where one side's is RATE_ALIKE times the other's or
    # more (two runs of one load sit closer than that; a lab flat out against production's quiet hour does not).
    # Pure.
    module ConditionGaps
      RATE_ALIKE = 1.25

      module_function

      # @param lab [Summary::Conditions, nil]
      # @param production [Summary::Conditions, nil]
      # @return [Array<Summary::ConditionGap>] where both sides know a condition and differ in it
      def call(lab, production)
        return [] unless lab && production

        gaps = (Summary::Conditions.members - %i[mix rate]).filter_map do |name|
          mine = lab[name]
          theirs = production[name]
          next if mine.nil? || theirs.nil? || mine == theirs

          Summary::ConditionGap.new(name: name.to_s, lab: mine, production: theirs)
        end
        [*gaps, rate_gap(lab.rate, production.rate), RequestMix.gap(lab.mix, production.mix)].compact
      end

      def rate_gap(mine, theirs)
        return unless mine&.positive? && theirs&.positive? && [mine, theirs].max / [mine, theirs].min >= RATE_ALIKE

        Summary::ConditionGap.new(name: "rate", lab: mine, production: theirs)
      end
    end
  end
end

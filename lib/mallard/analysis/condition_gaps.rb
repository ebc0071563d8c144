# frozen_string_literal: true

module Mallard
  module Analysis
    # The conditions a lab's run and production's processes are known to differ in (Summary::Conditions' members),
    # one rule for fleet --expect and compare --like. The request mix differs where one method and path's share does
    # by RequestMix::ALIKE or more (the largest such); the rate and the requests served where one side's is ALIKE
    # times the other's or more (two runs of one load sit closer than that; a lab flat out against production's quiet
    # hour does not, nor a 10 s lab against processes that have served for an hour). Pure.
    module ConditionGaps
      ALIKE = 1.25
      COUNTED = %i[rate served].freeze

      module_function

      # @param lab [Summary::Conditions, nil]
      # @param production [Summary::Conditions, nil]
      # @return [Array<Summary::ConditionGap>] where both sides know a condition and differ in it
      def call(lab, production)
        return [] unless lab && production

        gaps = (Summary::Conditions.members - [:mix, *COUNTED]).filter_map do |name|
          mine = lab[name]
          theirs = production[name]
          next if mine.nil? || theirs.nil? || mine == theirs

          Summary::ConditionGap.new(name: name.to_s, lab: mine, production: theirs)
        end
        counted = COUNTED.filter_map { |name| counted_gap(name, lab[name], production[name]) }
        [*gaps, *counted, RequestMix.gap(lab.mix, production.mix)].compact
      end

      def counted_gap(name, mine, theirs)
        return unless mine&.positive? && theirs&.positive? && [mine, theirs].max.fdiv([mine, theirs].min) >= ALIKE

        Summary::ConditionGap.new(name: name.to_s, lab: mine, production: theirs)
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Analysis
    # The conditions a lab's run and production's processes are known to differ in (Summary::Conditions' members),
    # one rule for fleet --expect and compare --like. The request mix differs where one method and path's share does
    # by RequestMix::ALIKE or more (the largest such). Pure.
    module ConditionGaps
      module_function

      # @param lab [Summary::Conditions, nil]
      # @param production [Summary::Conditions, nil]
      # @return [Array<Summary::ConditionGap>] where both sides know a condition and differ in it
      def call(lab, production)
        return [] unless lab && production

        gaps = (Summary::Conditions.members - [:mix]).filter_map do |name|
          mine = lab[name]
          theirs = production[name]
          next if mine.nil? || theirs.nil? || mine == theirs

          Summary::ConditionGap.new(name: name.to_s, lab: mine, production: theirs)
        end
        [*gaps, RequestMix.gap(lab.mix, production.mix)].compact
      end
    end
  end
end

# frozen_string_literal: true

# The sentences the views show for a summary that `--json` printed: the summary holds data, and its kind's presenter
# words it (Report::SoakSentences, Report::CompareSentences), so a test of a real run reads what a person reads.
module Worded
  # @param summary [Hash] a soak's or a gc run's summary as JSON
  def soak_words(summary) = Mallard::Report::SoakSentences.new(Mallard::Summary::Soak.from_h(summary))

  # @param summary [Hash, Summary::Compare] a comparison's summary
  def compare_words(summary) = Mallard::Report::CompareSentences.new(Mallard::Summary::Compare.from_h(summary))
end

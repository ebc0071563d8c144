# frozen_string_literal: true

module Mallard
  module Workload
    # The subject exited while a workload was loading it. Raised by a workload's #running?, rescued by the
    # experiment that runs it (Experiments::Soak), which records the run as interrupted and keeps what was measured.
    # Not an Error: it never reaches the command line, so it carries no exit status.
    class SubjectDied < StandardError; end
  end
end

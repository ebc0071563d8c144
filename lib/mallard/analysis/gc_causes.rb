# frozen_string_literal: true

module Mallard
  module Analysis
    # What Ruby's reasons for a GC mean, in a line each, for the causes a run's GCs gave (GC.latest_gc_info's
    # :major_by and :gc_by, as gc.c's gc_info_decode names them). A Rails developer meets "nofree" or "shady" in a
    # report without having read gc.c.
    module GcCauses
      MAJOR = {
        "nofree" => "a minor GC left no free slot, so Ruby ran a full GC before growing the heap",
        "oldgen" => "the old (long-lived) objects passed their limit: about twice what the last major GC left",
        "shady" => "objects the GC cannot track writes to (\"shady\": most made by C extensions) passed their " \
                   "limit; every GC must re-check them",
        "oldmalloc" => "memory malloc'ed for old objects passed its limit (RUBY_GC_OLDMALLOC_LIMIT)",
        "force" => "asked for: GC.start, or forced by Ruby itself (e.g. a failed allocation)"
      }.freeze
      MINOR = {
        "newobj" => "no free slot for a new object",
        "malloc" => "memory malloc'ed since the last GC passed its limit (RUBY_GC_MALLOC_LIMIT)",
        "method" => "GC.start called by code",
        "capi" => "a C extension asked for one (rb_gc)",
        "stress" => "GC.stress is on"
      }.freeze
      UNKNOWN = "a cause this Ruby did not report"

      module_function

      # @param major_by [Hash{String=>Integer}] major GCs by cause
      # @param minor_by [Hash{String=>Integer}] minor GCs by trigger
      # @return [Hash{String=>String}] "major by nofree" => its meaning, for each cause that occurred
      def call(major_by, minor_by)
        meanings(major_by, MAJOR, "major by").merge(meanings(minor_by, MINOR, "minor by"))
      end

      def meanings(counts, table, label)
        counts.to_h.keys.to_h { |cause| ["#{label} #{cause}", table.fetch(cause.to_s, UNKNOWN)] }
      end
    end
  end
end

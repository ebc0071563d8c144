# frozen_string_literal: true

module Mallard
  class RunKind
    # `mallard gc`: a soak whose summary leads with the GC and the live set; it diffs against any soak.
    class Gc < Soak
      def name = "gc"
      def diff_family = "soak"
      def gc_first? = true
    end

    register(Gc.new)
  end
end

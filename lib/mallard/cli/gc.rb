# frozen_string_literal: true

module Mallard
  class CLI
    # mallard gc DIR | mallard gc --url URL -- CMD | mallard gc --script FILE [-- ARGS]: a soak whose view puts
    # the GC timeline and the live set first. The run is a soak run (`report` and `diff` read it as one).
    class Gc < Soak
      BANNER = <<~TEXT.freeze
        Usage: mallard gc [options] TARGET

        The GC timeline of a soak: GC runs, pauses and their causes, GC's share of wall and CPU
        time, the live set after each major GC with a growing / plateaued verdict, whether major
        GCs take longer as the live set grows, and the RUBY_GC_* settings the subject ran with
        (flagging those its Ruby ignores). Memory, load and the rest follow, as in `mallard soak`.
        Same targets, options and exit status as `mallard soak`.

        #{MeasureOptions::TARGETS}
      TEXT

      private

      def command = "gc"

      def banner = BANNER
    end
  end
end

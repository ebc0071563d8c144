# frozen_string_literal: true

module Mallard
  module Report
    # Figures as the views print them.
    module Units
      private

      # Memory in MB (of 1,024 KB, as /proc counts), "—" when unknown.
      def mb(kb)
        kb ? format("%.1f MB", kb / 1024.0) : "—"
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  # What a size such as --memory-limit's means: a number with K, M, G or T (binary: 600M is 600 MiB, as Docker's
  # --memory and a cgroup's memory.max read it; a trailing i or B is taken too, so Kubernetes' 600Mi reads the same),
  # or a plain number of bytes.
  module MemorySize
    UNITS = { "" => 1, "K" => 1024, "M" => 1024**2, "G" => 1024**3, "T" => 1024**4 }.freeze
    PATTERN = /\A(\d+(?:\.\d+)?)([KMGT]?)(?:IB?|B)?\z/
    # Under a mebibyte no Ruby process starts; over a tebibyte is a typo.
    MIN_KB = 1024
    MAX_KB = 1024**3

    module_function

    # @param text [String, nil]
    # @return [Integer, nil] the size in KiB (rounded down); nil when the text is no size or out of range
    def kb(text)
      match = PATTERN.match(text.to_s.strip.upcase)
      return unless match

      size = (Float(match[1]) * UNITS.fetch(match[2]) / 1024).floor
      size if size.between?(MIN_KB, MAX_KB)
    end
  end
end

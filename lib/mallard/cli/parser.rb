# frozen_string_literal: true

require "optparse"

module Mallard
  class CLI
    # OptionParser for arguments of any bytes. OptionParser matches every argument against regexps, and a
    # regexp raises on a string that is not valid in its encoding (an app directory with a Latin-1 byte under
    # a UTF-8 locale). Such arguments are parsed as binary copies, and what comes back, operands and option
    # values alike, gets the argument's own encoding again: the same bytes under the same label as in ARGV,
    # so a path still names its file and still joins a working directory that is not ASCII.
    class Parser < OptionParser
      def parse!(argv = default_argv, into: nil)
        @label = argv.find { |arg| !arg.valid_encoding? }&.encoding
        return super unless @label

        originals = {}.compare_by_identity
        argv.map! { |arg| arg.valid_encoding? ? arg : arg.b.tap { |copy| originals[copy] = arg } }
        super.map! { |arg| originals.fetch(arg) { relabel(arg) } }
      end

      def on(*args, &block)
        return super unless block

        super(*args) { |*values| block.call(*values.map { |value| relabel(value) }) }
      end

      private

      def relabel(value)
        case value
        when Array then value.map { |item| relabel(item) }
        when String then @label && value.encoding == Encoding::BINARY ? value.dup.force_encoding(@label) : value
        else value
        end
      end
    end
  end
end

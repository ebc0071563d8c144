# frozen_string_literal: true

module Mallard
  module Agent
    # JSON text for the agent's lines, without the json library: json adds its generator's methods to Object,
    # String, Hash, Array and the numbers, and loaded into an app that had not loaded it, it made the demo app run
    # 2.0% more instructions per request (callgrind, 2,000 requests each way; bench/README.md). The agent writes only
    # flat values: hashes with string or symbol keys, numbers, strings, true, false and nil.
    module JsonText
      ESCAPES = { '"' => '\\"', "\\" => "\\\\", "\n" => "\\n", "\r" => "\\r", "\t" => "\\t" }.freeze
      NEEDS_ESCAPE = /["\\\x00-\x1f]/

      module_function

      # Appends value's JSON text to out; hashes are written key by key, so no pair arrays are made.
      # @return [String] out
      def append(out, value)
        case value
        when Hash then object(out, value)
        when String, Symbol then string(out, value.to_s)
        when Float then out << (value.finite? ? value.to_s : "null")
        when nil then out << "null"
        else out << value.to_s # Integer, true, false
        end
      end

      def object(out, hash)
        out << "{"
        hash.each do |key, value|
          string(out, key.is_a?(Symbol) ? key.name : key.to_s)
          out << ":"
          append(out, value)
          out << ","
        end
        out.chomp!(",")
        out << "}"
      end

      def string(out, text)
        text = text.encode(Encoding::UTF_8, invalid: :replace, undef: :replace) unless text.valid_encoding?
        out << '"' << (text.match?(NEEDS_ESCAPE) ? text.gsub(NEEDS_ESCAPE) { |c| escape(c) } : text) << '"'
      end

      def escape(char) = ESCAPES.fetch(char) { format("\\u%04x", char.ord) }
    end
  end
end

# frozen_string_literal: true

module Mallard
  module BootProbe
    # The boot probe's JSON lines, each written with one write(2) to samples.jsonl opened for appending: the
    # repeats run side by side and share the file, and a line written in one call is never interleaved with
    # another's. Every line is written as soon as its require ends, so a boot that crashes keeps its readings.
    #
    # It writes JSON itself instead of loading the json library: the probe runs before the app's first require,
    # and a library it loaded would be "already required" for the app, its cost moved out of the app's tree.
    class Output
      ESCAPES = { '"' => '\\"', "\\" => "\\\\" }.freeze
      NEEDS_ESCAPE = /["\\\x00-\x1f]/
      # A require that loaded its file (Hook's frame: id, parent, own objects at start, start and end readings).
      LOADED = %({"type":"require","repeat":%s,"id":%d,"parent":%d,"name":%s,"loaded":true,"file":%s,) +
               %("start":[%d,%d,%d,%d,%s,%d],"end":[%d,%d,%d,%d,%s,%d],"hook_objects":%d}\n)
      # One that loaded nothing (already loaded, or failed): it only says who else asked for the file.
      NOT_LOADED = %({"type":"require","repeat":%s,"id":%d,"parent":%d,"name":%s,"loaded":false,"error":%s}\n)

      def initialize(path, repeat:)
        @file = File.open(path, File::WRONLY | File::APPEND | File::CREAT, 0o600)
        @repeat = repeat
        @repeat_json = value(repeat)
        @line = +""
      end

      # One format call, and names quoted without a copy when they need no escaping: see Hook.
      def loaded(frame, name, file, hook_objects)
        @file.syswrite(format(LOADED, @repeat_json, frame[0], frame[1], quoted(name), quoted(file),
                              frame[3], frame[4], frame[5], frame[6], frame[7] || "null", frame[8],
                              frame[9], frame[10], frame[11], frame[12], frame[13] || "null", frame[14], hook_objects))
      end

      def not_loaded(frame, name, error)
        @file.syswrite(format(NOT_LOADED, @repeat_json, frame[0], frame[1], quoted(name),
                              error ? string(error) : "null"))
      end

      # @param fields [Hash{String => Integer, Float, String, Array, Hash, true, false, nil}]
      def write(type, fields)
        @line.clear
        @line << '{"type":' << string(type) << ',"repeat":' << value(@repeat)
        fields.each { |key, field| @line << "," << string(key) << ":" << value(field) }
        @line << "}\n"
        @file.syswrite(@line)
      end

      private

      def value(field)
        case field
        when String then string(field)
        when Array then "[#{field.map { |item| value(item) }.join(',')}]"
        when Hash then "{#{field.map { |key, item| "#{string(key.to_s)}:#{value(item)}" }.join(',')}}"
        when nil then "null"
        when Float then field.finite? ? field.round(6).to_s : "null"
        else field.to_s
        end
      end

      def quoted(name)
        name = name.to_s
        return string(name) if !name.valid_encoding? || name.encoding != Encoding::UTF_8 || name.match?(NEEDS_ESCAPE)

        "\"#{name}\""
      end

      # Paths may hold any bytes: what is not UTF-8 becomes U+FFFD, and control characters are escaped.
      def string(text)
        utf8 = text.encoding == Encoding::UTF_8 && text.valid_encoding?
        scrubbed = utf8 ? text : text.dup.force_encoding("UTF-8").scrub
        "\"#{scrubbed.gsub(/["\\\x00-\x1f]/) { |char| ESCAPES[char] || format('\\u%04x', char.ord) }}\""
      end
    end
  end
end

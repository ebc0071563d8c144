# frozen_string_literal: true

module Mallard
  # Text that comes from outside mallard (a subject's output, its command line, paths, /proc, files read
  # back) may hold any bytes. Two rules, applied where such text enters or is shown, never raise:
  #
  # - scrub: valid UTF-8, as JSON and every String method need. A byte that is not part of a valid
  #   character becomes the four characters \xFF, so it stays visible and can be told apart.
  # - printable: scrubbed, and safe to print on a terminal. Colour and cursor sequences (CSI) and
  #   title or link sequences (OSC) are dropped, since they carry no text; any other control character
  #   (newline included, tab excepted) becomes \x1B or \u009B, so one field stays on one line.
  #
  # What mallard runs (the subject's argv, its paths) keeps its bytes: only the copies it stores or
  # prints go through these rules.
  module Text
    # ESC [ parameters intermediates final, and ESC ] text ended by BEL or ESC \ (or by nothing, cut short).
    SEQUENCE = %r{\e\[[0-?]*[ -/]*[@-~]|\e\][^\a\e]*(?:\a|\e\\|\z)}
    # C0 but tab, DEL, C1.
    CONTROL = /[\u0000-\u0008\u000A-\u001F\u007F-\u009F]/

    module_function

    # @param text [String, nil] any bytes, in any encoding label (binary from a pipe, UTF-8 from a file)
    # @return [String, nil] valid UTF-8; a new string, so freezing or appending to it touches nothing else
    def scrub(text, escape: "\\x%02X")
      return if text.nil?

      utf8 = text.to_s.dup.force_encoding(Encoding::UTF_8)
      return utf8 if utf8.valid_encoding?

      utf8.scrub { |bytes| bytes.unpack("C*").map { |byte| format(escape, byte) }.join }
    end

    # JSON text read back from a file: an invalid byte inside a JSON string becomes the escaped
    # backslash \\xFF, which parses to the same \xFF that #scrub gives, and keeps the rest of the file.
    def scrub_json(source)
      scrub(source, escape: "\\\\x%02X")
    end

    # Every string in a structure of hashes and arrays (argv, options), keys included, scrubbed.
    def scrub_all(value)
      case value
      when String then scrub(value)
      when Array then value.map { |item| scrub_all(item) }
      when Hash then value.to_h { |key, item| [scrub_all(key), scrub_all(item)] }
      else value
      end
    end

    # @return [String] one line, safe for a terminal (see the module's comment)
    def printable(text)
      scrub(text.to_s).gsub(SEQUENCE, "").gsub(CONTROL) do |char|
        format(char.ord < 0x80 ? "\\x%02X" : "\\u%04X", char.ord)
      end
    end

    # Text meant to span lines (an error message, an output tail): each line printable on its own.
    # @return [Array<String>]
    def printable_lines(text)
      scrub(text.to_s).split(/\r?\n/).map { |line| printable(line) }
    end
  end
end

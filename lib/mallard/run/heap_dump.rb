# frozen_string_literal: true

require "json"
require_relative "heap_dump/tally"
require_relative "heap_dump/extension"

module Mallard
  module Run
    # One ObjectSpace.dump_all file, read line by line and never held: heapy's JSON.parse of every line runs at
    # ~55 MB/s and a parser that indexes the whole dump needs memory near its size, while the three-dump method
    # needs only a few fields of the objects allocated inside one window of generations. The pass is
    # mallard/heap_scan_ext's where it is built, else Tally's in Ruby: both count the same (see Tally for how).
    module HeapDump
      # A dump as streamed: its size, objects, the newest generation in it (the GC count when it was taken, for
      # a dump with allocation tracing), objects and memsize per generation, class and module names by address,
      # and, for the window asked for, objects and memsize per allocation site (file, line, class address).
      Scan = Struct.new(:path, :bytes, :objects, :max_generation, :generations, :classes, :sites, :seconds,
                        keyword_init: true) do
        def traced? = !max_generation.nil?
        def mb_per_s = seconds.positive? ? bytes / 1e6 / seconds : nil

        # A class's name from its address: a class without a name by the one it derives from ("Foo (singleton)",
        # "anonymous < Foo"), a module included into a class by the module ("Foo (included)"); objects with no
        # class (nil's value as their class: the VM's internal IMEMOs) as INTERNAL; an address the dump holds no
        # class for, as it is.
        def class_name(address, depth = 0)
          return INTERNAL if address == NIL_CLASS

          known = classes.fetch(address, address)
          return known unless known.is_a?(Array) && depth < 8

          kind, superclass = known
          base = superclass ? class_name(superclass, depth + 1) : "Object"
          UNNAMED.fetch(kind, "anonymous < %s") % base
        end
      end
      UNNAMED = { "singleton" => "%s (singleton)", "included" => "%s (included)" }.freeze
      # Qnil as a class address: what dump_all writes for objects without a class.
      NIL_CLASS = "0x8"
      INTERNAL = "(internal)"

      module_function

      # @param window [Range, nil] generations whose objects are tallied by site (exclusive start: (a, b])
      # @param scanner [#tally] Extension or Tally; the extension where it is built
      # @return [Scan]
      # @raise [NotFound] when the file cannot be read
      def scan(path, window: nil, scanner: default_scanner)
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        objects, max_generation, generations, classes, sites = scanner.tally(path, window)
        Scan.new(path: path, bytes: File.size(path), objects: objects, max_generation: max_generation,
                 generations: generations, classes: classes, sites: sites,
                 seconds: Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)
      rescue SystemCallError => e
        raise NotFound, "cannot read heap dump #{path}: #{e.message.sub(/ @ .*| - .*/, '')}"
      end

      def default_scanner = Extension.available? ? Extension : Tally

      # A JSON string's text that holds a backslash escape, decoded. Ruby 3.1's dump_all writes file names
      # unescaped, so a backslash there may start no valid escape: such text is kept as it is.
      # @param raw [String] the bytes between the quotes
      def decode(raw)
        JSON.parse(%("#{raw}"))
      rescue JSON::ParserError, EncodingError
        raw.dup.force_encoding(Encoding::UTF_8)
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Run
    module HeapDump
      # The counts one pass builds, line by line, in Ruby: the scan where mallard/heap_scan_ext is not built
      # (ext/mallard_heap_scan/heap_scan.c applies the same rules, ~10 times faster).
      #
      # Each line is searched for the keys it needs (dump_all writes them in a fixed order, generation and
      # memsize near the end); string values are never read, so nothing here holds the app's data. Inside a
      # JSON string a quote is always escaped, so a key with its quotes (`"generation":`) cannot be matched
      # inside a value. A file name is the exception: Ruby 3.1's dump_all writes it unescaped, so one holding
      # a quote is cut short there, the same way by both scans.
      class Tally
        GENERATION = '"generation":'
        MEMSIZE = '"memsize":'
        TYPE = '"type":"'
        FILE_KEY = '"file":"'
        LINE_KEY = '"line":'
        CLASS_KEY = '"class":"'
        NAME_KEY = '"name":"'
        SUPERCLASS_KEY = '"superclass":"'
        SINGLETON_KEY = '"singleton":true'
        ADDRESS_START = 12 # after {"address":"
        ROOT_MARK = 116 # the "t" of {"type":"ROOT": a root lists references, it is no object
        # Ruby 3.3+ also dumps its object shapes ({"address":…, "type":"SHAPE", "id":…}): no objects either.
        SHAPE = 'SHAPE"'
        BACKSLASH = 92
        ICLASS = "ICLASS\""
        CLASS_TYPES = { 67 => "CLASS\"", 77 => "MODULE\"", 73 => ICLASS }.freeze

        attr_reader :objects, :max_generation, :generations, :classes, :sites

        # @return [Array] objects, max_generation, generations, classes, sites (as HeapScanExt.scan returns them)
        def self.tally(path, window)
          tally = new(window)
          File.foreach(path, mode: "rb") { |line| tally.add(line) }
          [tally.objects, tally.max_generation, tally.generations, tally.classes, tally.sites]
        end

        def initialize(window)
          @window = window
          @objects = 0
          @generations = {}
          @classes = {}
          @sites = {}
        end

        def add(line)
          return if line.getbyte(2) == ROOT_MARK

          type_at = line.index(TYPE, ADDRESS_START)
          return if type_at && line.byteslice(type_at + 8, 6) == SHAPE

          @objects += 1
          class_name(line, type_at) if type_at
          at = line.rindex(GENERATION)
          traced(line, at) if at
        end

        private

        def traced(line, at)
          generation = line.byteslice(at + 13, 12).to_i
          memsize_at = line.index(MEMSIZE, at)
          memsize = memsize_at ? line.byteslice(memsize_at + 10, 14).to_i : 0
          @max_generation = generation if @max_generation.nil? || generation > @max_generation
          counts = (@generations[generation] ||= [0, 0])
          counts[0] += 1
          counts[1] += memsize
          site(line, at, memsize) if @window&.cover?(generation)
        end

        def site(line, generation_at, memsize)
          file_at = line.rindex(FILE_KEY, generation_at)
          file = file_at && string_at(line, file_at + 8)
          line_at = file_at && line.index(LINE_KEY, file_at)
          class_at = line.index(CLASS_KEY, ADDRESS_START)
          key = [file, line_at && line.byteslice(line_at + 7, 10).to_i,
                 class_at && string_at(line, class_at + 9)]
          counts = (@sites[key] ||= [0, 0])
          counts[0] += 1
          counts[1] += memsize
        end

        # Classes and modules by address, for the objects' class names: a name, or for a class without one (an
        # anonymous class, a singleton class) ["singleton" or "anonymous", its superclass's address].
        def class_name(line, type_at)
          kind = CLASS_TYPES[line.getbyte(type_at + 8)]
          return unless kind && line.byteslice(type_at + 8, kind.bytesize) == kind

          address = string_at(line, ADDRESS_START)
          return @classes[address] = included(line) if kind == ICLASS

          name_at = line.index(NAME_KEY, type_at)
          @classes[address] = name_at ? string_at(line, name_at + 8) : unnamed(line, type_at)
        end

        # A module as included into a class: named by the module, its "class".
        def included(line)
          class_at = line.index(CLASS_KEY, ADDRESS_START)
          ["included", class_at && string_at(line, class_at + CLASS_KEY.bytesize)]
        end

        def unnamed(line, type_at)
          superclass_at = line.index(SUPERCLASS_KEY, type_at)
          [line.index(SINGLETON_KEY, type_at) ? "singleton" : "anonymous",
           superclass_at && string_at(line, superclass_at + SUPERCLASS_KEY.bytesize)]
        end

        # The JSON string that starts at from, up to the first quote not escaped by a backslash (one preceded
        # by an even run of them ends it); decoded only when it holds an escape; nil when the line ends first.
        def string_at(line, from)
          stop = from
          while (stop = line.index('"', stop))
            before = stop
            before -= 1 while before > from && line.getbyte(before - 1) == BACKSLASH
            break if (stop - before).even?

            stop += 1
          end
          return unless stop

          raw = line.byteslice(from, stop - from)
          raw.include?("\\") ? HeapDump.decode(raw) : raw.force_encoding(Encoding::UTF_8)
        end
      end
    end
  end
end

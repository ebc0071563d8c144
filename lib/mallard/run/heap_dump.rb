# frozen_string_literal: true

require "json"

module Mallard
  module Run
    # One ObjectSpace.dump_all file, read line by line and never held: heapy's JSON.parse of every line runs at
    # ~55 MB/s and a parser that indexes the whole dump needs memory near its size, while the three-dump method
    # needs only a few fields of the objects allocated inside one window of generations. Each line is searched
    # for the keys it needs (dump_all writes them in a fixed order, generation and memsize near the end); string
    # values are never read, so nothing here holds the app's data. Inside a JSON string a quote is always
    # escaped, so a key with its quotes (`"generation":`) cannot be matched inside a value.
    module HeapDump
      # A dump as streamed: its size, objects, the newest generation in it (the GC count when it was taken, for
      # a dump with allocation tracing), objects and memsize per generation, class and module names by address,
      # and, for the window asked for, objects and memsize per allocation site (file, line, class address).
      Scan = Struct.new(:path, :bytes, :objects, :max_generation, :generations, :classes, :sites, :seconds,
                        keyword_init: true) do
        def traced? = !max_generation.nil?
        def mb_per_s = seconds.positive? ? bytes / 1e6 / seconds : nil
      end

      GENERATION = '"generation":'
      MEMSIZE = '"memsize":'
      TYPE = '"type":"'
      FILE_KEY = '"file":"'
      LINE_KEY = '"line":'
      CLASS_KEY = '"class":"'
      NAME_KEY = '"name":"'
      ADDRESS_START = 12 # after {"address":"
      ROOT_MARK = 116 # the "t" of {"type":"ROOT": a root lists references, it is no object
      CLASS_TYPES = { 67 => "CLASS\"", 77 => "MODULE\"" }.freeze

      module_function

      # @param window [Range, nil] generations whose objects are tallied by site (exclusive start: (a, b])
      # @return [Scan]
      # @raise [NotFound] when the file cannot be read
      def scan(path, window: nil)
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        tally = Tally.new(window)
        File.foreach(path, mode: "rb") { |line| tally.add(line) }
        Scan.new(path: path, bytes: File.size(path), objects: tally.objects, max_generation: tally.max_generation,
                 generations: tally.generations, classes: tally.classes, sites: tally.sites,
                 seconds: Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)
      rescue SystemCallError => e
        raise NotFound, "cannot read heap dump #{path}: #{e.message.sub(/ @ .*| - .*/, '')}"
      end

      # The counts one pass builds, line by line.
      class Tally
        attr_reader :objects, :max_generation, :generations, :classes, :sites

        def initialize(window)
          @window = window
          @objects = 0
          @generations = Hash.new { |hash, generation| hash[generation] = [0, 0] }
          @classes = {}
          @sites = Hash.new { |hash, site| hash[site] = [0, 0] }
        end

        def add(line)
          return if line.getbyte(2) == ROOT_MARK

          @objects += 1
          class_name(line)
          at = line.rindex(GENERATION)
          traced(line, at) if at
        end

        private

        def traced(line, at)
          generation = line.byteslice(at + 13, 12).to_i
          memsize_at = line.index(MEMSIZE, at)
          memsize = memsize_at ? line.byteslice(memsize_at + 10, 14).to_i : 0
          @max_generation = generation if @max_generation.nil? || generation > @max_generation
          counts = @generations[generation]
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
          counts = @sites[key]
          counts[0] += 1
          counts[1] += memsize
        end

        # Classes and modules by address, for the objects' class names.
        def class_name(line)
          type_at = line.index(TYPE, ADDRESS_START)
          return unless type_at

          kind = CLASS_TYPES[line.getbyte(type_at + 8)]
          return unless kind && line.byteslice(type_at + 8, kind.bytesize) == kind

          name_at = line.index(NAME_KEY, type_at)
          @classes[string_at(line, ADDRESS_START)] = string_at(line, name_at + 8) if name_at
        end

        # The JSON string that starts at from, decoded only when it holds an escape.
        def string_at(line, from)
          stop = from
          stop = line.index('"', stop + 1) while (stop = line.index('"', stop)) && line.getbyte(stop - 1) == 92
          raw = line.byteslice(from, stop - from)
          raw.include?("\\") ? JSON.parse(%("#{raw}")) : raw.force_encoding(Encoding::UTF_8)
        end
      end
    end
  end
end

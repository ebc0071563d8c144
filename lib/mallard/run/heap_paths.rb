# frozen_string_literal: true

module Mallard
  module Run
    # One sample reference path from a GC root to an object a site keeps, read back from the last dump.
    #
    # A dump lists what each object refers to, never who refers to it, and a reverse index of a whole dump would
    # need memory near its size. So the path is found backwards, one pass over the dump per step: the first pass
    # picks one object of each site (in the window), each later pass looks only for the lines that refer to the
    # few addresses at the heads of the paths (a root's line ends a path). At most MAX_STEPS passes, for at most a
    # few sites: these are the only passes beyond the one per dump.
    module HeapPaths
      MAX_STEPS = 12
      # One object on a path: its address, type, class address and allocation site; or (root) the GC root's name.
      Step = Struct.new(:address, :type, :class_address, :file, :line, :root, keyword_init: true)

      ROOT_LINE = '{"type":"ROOT"'
      ROOT_NAME = '"root":"'
      CHUNK = 4 << 20

      module_function

      # @param sites [Array(String, Integer)] file and line of each site to explain
      # @param window [Range] the generations whose objects the sites kept
      # @return [Hash{Array(String, Integer) => Array<Step>}] root first, the site's object last; a path that
      #   found no root within MAX_STEPS starts at the farthest object found
      def find(path, sites, window)
        paths = samples(path, sites, window).transform_values { |step| [step] }
        heads = paths.to_h { |site, steps| [steps.first.address, site] }
        seen = heads.keys.to_h { |address| [address, true] }
        MAX_STEPS.times do
          break if heads.empty?

          heads = step_back(path, heads, paths, seen)
        end
        paths
      end

      # The first object of each site, in the window.
      def samples(path, sites, window)
        needles = sites.to_h { |file, line| [%("file":"#{file}", "line":#{line},), [file, line]] }
        found = {}
        each_line_holding(path, needles.keys) do |needle, text|
          next unless needles.key?(needle) && window.cover?(generation(text))

          found[needles.delete(needle)] = step(text)
          break if needles.empty?
        end
        found
      end

      # Yields each line that holds one of the needles (a line once per needle), found with String#index over
      # whole chunks of the file: a pass runs at the speed of the search, not of Ruby's per-line loop.
      def each_line_holding(path, needles)
        each_chunk(path) do |chunk, from, limit|
          needles.each do |needle|
            at = from
            while (at = chunk.index(needle, at)) && at < limit
              start = (chunk.rindex("\n", at) || -1) + 1
              stop = chunk.index("\n", at) || limit
              yield needle, chunk.byteslice(start, stop - start), at - start
              at = stop
            end
          end
        end
      end

      # The file read into one reused buffer: yields each chunk with the span of the whole lines that start in it,
      # and the line cut by a chunk's end as one small string of its own. No chunk is copied and none is shared: a
      # carried remainder, or a slice sharing the buffer, grew earlier versions to 100 MB on a 212 MB dump.
      def each_chunk(path)
        File.open(path, "rb") do |file|
          block = String.new(capacity: CHUNK)
          tail = +""
          while file.read(CHUNK, block)
            first = block.index("\n")
            next tail << block unless first

            yield joined = tail << block.byteslice(0, first + 1), 0, joined.bytesize
            last = block.rindex("\n")
            yield block, first + 1, last + 1
            # A copy: a slice to the end would share the buffer, and the next read into it allocate a new one.
            tail = block.unpack1("@#{last + 1}a*")
          end
          yield tail, 0, tail.bytesize unless tail.empty?
        end
      end

      # One pass: who refers to each head. A root ends its path; otherwise the first referrer not seen before
      # becomes the new head.
      def step_back(path, heads, paths, seen)
        referrers = {}
        quoted = heads.keys.to_h { |address| [%("#{address}"), address] }
        each_line_holding(path, quoted.keys) do |needle, text, at|
          address = quoted[needle]
          next if at <= 11 || referrers[address]&.root # the object's own line names it first, at 11

          referrer = text.start_with?(ROOT_LINE) ? root(text) : step(text)
          referrers[address] = referrer if referrer.root || (!referrers[address] && !seen[referrer.address])
        end
        extend_paths(heads, referrers, paths, seen)
      end

      def extend_paths(heads, referrers, paths, seen)
        heads.each_with_object({}) do |(address, site), next_heads|
          referrer = referrers[address]
          next unless referrer

          paths[site].unshift(referrer)
          next if referrer.root

          seen[referrer.address] = true
          next_heads[referrer.address] = site
        end
      end

      def step(text)
        Step.new(address: field(text, '"address":"'), type: field(text, '"type":"'),
                 class_address: field(text, '"class":"'), file: field(text, '"file":"'),
                 line: text[/"line":(\d+)/, 1]&.to_i)
      end

      def root(text)
        Step.new(root: field(text, ROOT_NAME))
      end

      def generation(text)
        at = text.rindex('"generation":')
        at ? text.byteslice(at + 13, 12).to_i : nil
      end

      # A short field's text (an address, a type, a file name): decoded only when it holds an escape.
      def field(text, key)
        at = text.index(key)
        return unless at

        start = at + key.size
        raw = text.byteslice(start, text.index('"', start) - start)
        raw.include?("\\") ? HeapDump.decode(raw) : raw.force_encoding(Encoding::UTF_8)
      end
    end
  end
end

# frozen_string_literal: true

module Mallard
  module Agent
    # How much address space YJIT reserved for its code, read from this process's own /proc/self/maps: what shows that
    # --yjit-exec-mem-size took effect. Ruby 3.3 reports how much of the region holds code (runtime_stats'
    # code_region_size) but not the region's size, and the option in RUBYOPT says only what was asked.
    #
    # YJIT reserves the region at its start as one inaccessible (PROT_NONE) anonymous mapping of exactly the size asked,
    # then makes pages executable from its low end as it writes code (a code GC, 3.3's --yjit-code-gc, returns pages to
    # inaccessible between them). In the maps that is a span of anonymous mappings with no gap between them, r-x then
    # ---p, 32 MiB in all under --yjit-exec-mem-size=32 on 3.3.8 (48 MiB, its default, under --yjit alone). Read with
    # the GVL held, as the agent reads, no page is mid-write (rw-): YJIT compiles holding it and makes its pages
    # executable again before it lets go. Another anonymous r-x mapping (a libffi trampoline) spans a page or two, so
    # the longest such span is YJIT's. Ruby 3.4 names its mappings ([anon:Ruby:…]); a name with "yjit" in it counts as
    # anonymous too. A span could in principle run on into a neighbouring inaccessible mapping the kernel merged with
    # it: then the size read is larger than asked, and the row is refused rather than measured as something it is not.
    module YjitRegion
      PATH = "/proc/self/maps"
      # start, end, perms, inode, name
      MAPPING = /^(\h+)-(\h+) (\S{4}) \S+ \S+ (\d+) *(.*)$/
      CODE = "r-xp"
      RESERVED = "---p"

      module_function

      # @return [Integer, nil] the region's size in bytes; nil where YJIT holds none or the maps cannot be read
      def read(path = PATH)
        bytes(File.read(path))
      rescue SystemCallError
        nil
      end

      # @param maps [String] a process's /proc/PID/maps
      # @return [Integer, nil] the longest span that starts with anonymous code and goes on, with no gap, through
      #   anonymous code and inaccessible mappings; nil when there is no anonymous code
      def bytes(maps)
        spans = []
        maps.scan(MAPPING) do |start, finish, perms, inode, name|
          next spans << nil unless anonymous?(inode, name) && [CODE, RESERVED].include?(perms)

          extend_span(spans, start.to_i(16), finish.to_i(16), perms)
        end
        spans.compact.map { |(start, finish)| finish - start }.max
      end

      def extend_span(spans, start, finish, perms)
        last = spans.last
        return last[1] = finish if last && last[1] == start

        spans << (perms == CODE ? [start, finish] : nil)
      end

      def anonymous?(inode, name) = inode == "0" && (name.empty? || name.match?(/yjit/i))

      private_class_method :extend_span, :anonymous?
    end
  end
end

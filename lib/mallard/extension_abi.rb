# frozen_string_literal: true

require "rbconfig"
require_relative "version"

module Mallard
  # Which Ruby a C extension of mallard's was built for, and where the extensions built for the Ruby running this
  # code are kept. An extension built for one Ruby must never be loaded into another: a 3.3 process refuses a
  # 3.1-built .so ("linked to incompatible libruby-3.1.so"), and one built against another libruby would map a
  # second libruby into the app. So every build records its key, and the agent loads only its own Ruby's.
  #
  # Loaded inside the app (by the agent): rbconfig only, no digest or zlib, which an app's bundle may pin.
  module ExtensionAbi
    ROOT_VARIABLE = "MALLARD_EXT_DIR"
    SOURCES = File.expand_path("../../ext", __dir__)
    # Each optional extension: its source directory under ext/ and the file it builds (mallard/NAME.so).
    EXTENSIONS = { "mallard" => "trim_ext", "mallard_gc" => "gc_events_ext",
                   "mallard_malloc_stats" => "malloc_stats_ext", "mallard_heap_scan" => "heap_scan_ext" }.freeze

    module_function

    # Ruby's version, patch level and platform, which libruby it links (its path: two builds of one version,
    # stock and jemalloc-linked, differ there) and mallard's version. Written next to each built extension.
    def key(config = RbConfig::CONFIG)
      libruby = config["ENABLE_SHARED"] == "yes" ? File.join(config["libdir"], config["LIBRUBY_SO"]) : "static"
      "#{RUBY_VERSION}-p#{RUBY_PATCHLEVEL}-#{config['arch']}-#{fingerprint(libruby)}-mallard-#{VERSION}"
    end

    # The directory of the extensions built for this Ruby from these sources (a checkout's ext/ changes
    # without mallard's version changing): ROOT/KEY-SOURCES/mallard/NAME.so.
    def dir(env = ENV)
      File.join(root(env), "#{key}-#{fingerprint(sources)}")
    end

    # MALLARD_EXT_DIR (mallard sets it for the app it starts), else a cache outside the checkout.
    def root(env = ENV)
      return env[ROOT_VARIABLE] if env[ROOT_VARIABLE] && !env[ROOT_VARIABLE].empty?
      return "/var/cache/mallard/ext" if Process.uid.zero?

      File.join(env["XDG_CACHE_HOME"] || File.join(Dir.home, ".cache"), "mallard", "ext")
    rescue ArgumentError # no home directory
      "/tmp/mallard-ext"
    end

    # Names, sizes and times rather than contents: read at every boot of the app, so it must cost nothing.
    def sources
      Dir.glob(File.join(SOURCES, "**", "*.{c,h,rb}")).map do |file|
        stat = File.stat(file)
        "#{file}:#{stat.size}:#{stat.mtime.to_i}"
      end.join("\n")
    end

    # 64-bit FNV-1a, in hex: stable across processes, unlike String#hash. Worked in two 32-bit halves, so that every
    # step stays a Fixnum: on whole 64-bit values each step made a Bignum, 1,800 objects per boot of the app for
    # the agent alone, and an allocation-bound app's GCs run differently after them (bench/README.md). The prime is
    # 2**40 + 0x1b3: times the low half's lowest 24 bits shifted 40 bits, plus each half times 0x1b3.
    def fingerprint(text)
      high = 0xcbf29ce4
      low = 0x84222325
      text.each_byte do |byte|
        low ^= byte
        product = low * 0x1b3
        high = ((high * 0x1b3) + (product >> 32) + ((low & 0xffffff) << 8)) & 0xffffffff
        low = product & 0xffffffff
      end
      format("%08x%08x", high, low)[0, 12]
    end
  end
end

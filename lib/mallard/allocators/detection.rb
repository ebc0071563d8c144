# frozen_string_literal: true

module Mallard
  module Allocators
    # Which malloc a running process really uses, read from the files mapped into it rather than
    # from what its environment asked for: a preload can fail silently, a Ruby can link jemalloc.
    #
    # via: "preloaded" (LD_PRELOAD or /etc/ld.so.preload), "linked" (a dependency of the
    # executable or libruby), or "default" (the C library's own malloc).
    Detection = Struct.new(:name, :via, :path, :also_mapped, :preload_missing, keyword_init: true) do
      self::SIGNATURES = {
        "jemalloc" => %r{/libjemalloc[^/]*\.so},
        "tcmalloc" => %r{/libtcmalloc[^/]*\.so},
        "mimalloc" => %r{/libmimalloc[^/]*\.so}
      }.freeze
      self::C_LIBRARIES = { "glibc" => %r{/libc(?:-[\d.]+)?\.so}, "musl" => %r{/ld-musl-[^/]*\.so} }.freeze
      self::SYSTEM_PRELOAD = "/etc/ld.so.preload"

      def self.detect(mapped_paths:, environ:, system_preload: read_system_preload)
        preloads = environ["LD_PRELOAD"].to_s.split(/[:\s]+/).reject(&:empty?) + system_preload
        preloaded = ->(path) { preloads.any? { |entry| same_library?(entry, path) } }
        missing = preloads.reject { |entry| mapped_paths.any? { |path| same_library?(entry, path) } }
        found = mapped_allocators(mapped_paths)
        return default_allocator(mapped_paths, missing) if found.empty?

        # A preloaded allocator wins symbol lookup over one pulled in as a dependency.
        name, path = found.find { |_, candidate| preloaded.call(candidate) } || found.first
        new(name: name, via: preloaded.call(path) ? "preloaded" : "linked", path: path,
            also_mapped: found.map(&:last) - [path], preload_missing: missing)
      end

      def self.mapped_allocators(mapped_paths)
        mapped_paths.filter_map do |path|
          name, = self::SIGNATURES.find { |_, pattern| path.match?(pattern) }
          [name, path] if name
        end
      end

      def self.default_allocator(mapped_paths, missing)
        name, pattern = self::C_LIBRARIES.find { |_, re| mapped_paths.any? { |p| p.match?(re) } }
        new(name: name || "unknown", via: "default", path: mapped_paths.find { |p| pattern&.match?(p) },
            also_mapped: [], preload_missing: missing)
      end

      # LD_PRELOAD may name a path, a symlink to it, or a bare soname that the linker resolves
      # (libmimalloc.so.2 maps as libmimalloc.so.2.0).
      def self.same_library?(entry, mapped_path)
        return true if entry == mapped_path || real(entry) == mapped_path

        File.basename(mapped_path).start_with?(File.basename(entry))
      end

      def self.real(path)
        File.realpath(path)
      rescue SystemCallError
        nil
      end

      def self.read_system_preload
        Text.scrub(File.binread(self::SYSTEM_PRELOAD)).split(/\s+/).reject(&:empty?)
      rescue SystemCallError
        []
      end
    end
  end
end

# frozen_string_literal: true

require "rbconfig"

module Mallard
  module Allocators
    # Finds a shared library by soname the way the dynamic linker would: the ld.so cache
    # (`ldconfig -p`) first, then the directories distributions and Homebrew install into.
    class LibraryFinder
      LDCONFIG = %w[/sbin/ldconfig /usr/sbin/ldconfig].freeze
      # ldconfig's tag for this machine's word size and ISA, so a 32-bit copy is never chosen.
      ARCH_TAGS = { "x86_64" => "x86-64", "aarch64" => "AArch64" }.freeze

      def self.default
        @default ||= new
      end

      def initialize(ldconfig_listing: nil, dirs: nil, cpu: RbConfig::CONFIG["host_cpu"])
        @ldconfig_listing = ldconfig_listing
        @dirs = dirs || default_dirs(cpu)
        @arch_tag = ARCH_TAGS[cpu]
      end

      # @param sonames [Array<String>] names to try, preferred first
      # @return [String, nil] the library's path
      def find(sonames)
        sonames.each do |soname|
          path = cache[soname] || @dirs.map { |dir| File.join(dir, soname) }.find { |f| File.file?(f) }
          return path if path
        end
        nil
      end

      private

      def cache
        @cache ||= parse(@ldconfig_listing || read_ldconfig)
      end

      #   libjemalloc.so.2 (libc6,x86-64) => /lib/x86_64-linux-gnu/libjemalloc.so.2
      def parse(listing)
        listing.each_line.with_object({}) do |line, found|
          next unless (m = line.match(/\A\s*(\S+) \(([^)]*)\) => (\S+)/))
          next if @arch_tag && !m[2].include?(@arch_tag)

          found[m[1]] ||= m[3] if File.file?(m[3])
        end
      end

      def read_ldconfig
        ldconfig = LDCONFIG.find { |path| File.executable?(path) }
        return "" unless ldconfig

        IO.popen([ldconfig, "-p"], err: File::NULL, &:read)
      rescue SystemCallError
        ""
      end

      def default_dirs(cpu)
        multiarch = "#{cpu}-linux-gnu"
        ["/usr/lib/#{multiarch}", "/lib/#{multiarch}", "/usr/lib64", "/lib64", "/usr/lib", "/lib",
         "/usr/local/lib", "/opt/homebrew/lib", "/usr/local/opt/jemalloc/lib"]
      end
    end
  end
end

# frozen_string_literal: true

# malloc_trim(0) after each major GC, for a Ruby process on glibc malloc (mallard's glibc-trim).
#
# glibc keeps the memory Ruby frees inside its arenas; after a major GC this hands the free pages
# back to the kernel, as a patched Ruby would, without rebuilding Ruby. Load it as early as you can:
#
#   require "mallard/trim"          # first line of config/puma.rb or config/boot.rb
#   RUBYOPT="-rmallard/trim"        # or for every Ruby process started with this environment
#
# The trimming runs from a postponed job at the next safe point after the GC, never inside it.
# Where the C extension is not built (a C library without malloc_trim, such as musl or macOS; or
# no compiler at install time) this warns once and does nothing else: it never raises.
#
# Once loaded, mallard/trim_ext.so is in the process's maps: `grep trim_ext /proc/PID/maps`, or let
# `mallard doctor --allocator glibc-trim -- CMD` start CMD with it and verify that.
#
# This file loads only itself and the extension (never the whole gem): it runs inside your app.
require_relative "trim/availability"
require_relative "extension_loader"

module Mallard
  module Trim
    class << self
      # Loads the extension and installs the GC hook; warns instead when it cannot. Idempotent.
      # @return [Boolean] whether trimming is on
      def start
        return installed? if respond_to?(:installed?)

        load_extension
        install
        true
      rescue LoadError, StandardError => e
        off(e.message)
      end

      private

      # Only one built for this Ruby (ExtensionLoader): one built for another would fail, or map a second libruby.
      def load_extension
        _, reason = ExtensionLoader.load("trim_ext", :Trim)
        raise LoadError, reason if reason
      end

      # Leaves the same interface in place, reporting that nothing is trimmed.
      def off(reason)
        warn "mallard/trim: the C extension is not built (#{reason}); malloc_trim after GC is off"
        define_singleton_method(:installed?) { false }
        define_singleton_method(:trims) { 0 }
        false
      end
    end
  end
end

Mallard::Trim.start

# frozen_string_literal: true

# Builds mallard/malloc_stats_ext, the agent's reading of the bytes the C allocator has handed out. It is
# optional: it finds the allocator's introspection call at run time through the dynamic linker, so where there
# is no dlsym this writes a Makefile that builds nothing, so `gem install mallard` still succeeds, and records
# why for lib/mallard/agent/malloc_stats.rb to say so. A C library without mallinfo2 (glibc < 2.33, musl,
# macOS) still builds it: there only the preloaded allocators give a reading.
require "mkmf"
require_relative "../optional_extension"

# RTLD_DEFAULT and dladdr are GNU extensions in glibc's dlfcn.h; every check includes ruby.h first, whose
# config.h defines _GNU_SOURCE where it matters, as malloc_stats.c does.
unless have_header("dlfcn.h") && (have_library("dl", "dlsym", "dlfcn.h") || have_func("dlsym", "dlfcn.h")) &&
       have_macro("RTLD_DEFAULT", "dlfcn.h")
  OptionalExtension.unavailable("malloc_stats_ext", "dlsym(RTLD_DEFAULT, ...) is not available",
                                "the agent will read no allocator figures", __dir__)
  return
end

have_func("dladdr", "dlfcn.h")
have_func("mallinfo2", "malloc.h")

OptionalExtension.available("malloc_stats_ext")
$CFLAGS << " -Wall -Wextra -Wno-unused-parameter" # rubocop:disable Style/GlobalVars -- mkmf's interface
create_makefile("mallard/malloc_stats_ext")

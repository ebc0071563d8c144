# frozen_string_literal: true

# Builds mallard/heap_scan_ext, the C pass over an ObjectSpace.dump_all file behind Run::HeapDump.scan. It is
# optional: it needs only POSIX open/read, but where those are missing (or there is no compiler at install
# time) this writes a Makefile that builds nothing, so `gem install mallard` still succeeds, and records why;
# Run::HeapDump then scans in Ruby, about ten times slower.
require "mkmf"
require_relative "../optional_extension"

unless have_header("fcntl.h") && have_header("unistd.h") && have_func("read", "unistd.h")
  OptionalExtension.unavailable("heap_scan_ext", "POSIX open/read are not available",
                                "heap dumps will be scanned in Ruby, about ten times slower", __dir__)
  return
end

# Each is optional: without memrchr heap_scan.c searches backwards with a loop of its own, and without
# rb_thread_call_without_gvl it scans holding the GVL.
have_func("memrchr", "string.h")
have_func("posix_fadvise", "fcntl.h")
have_header("ruby/thread.h") && have_func("rb_thread_call_without_gvl", "ruby/thread.h")

OptionalExtension.available("heap_scan_ext")
$CFLAGS << " -Wall -Wextra -Wno-unused-parameter" # rubocop:disable Style/GlobalVars -- mkmf's interface
create_makefile("mallard/heap_scan_ext")

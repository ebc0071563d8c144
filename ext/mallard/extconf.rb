# frozen_string_literal: true

# Builds mallard/trim_ext, the glibc-trim configuration's C extension. It is optional: where the C
# library has no malloc_trim (musl, macOS) this writes a Makefile that builds nothing, so
# `gem install mallard` still succeeds, and records why for lib/mallard/trim.rb to say so.
require "mkmf"

# Next to where the built extension would be installed (gem install copies it into lib/mallard),
# so the Ruby side can tell "not supported here" from "not built yet" without loading anything.
REASON_FILE = File.expand_path("../../lib/mallard/trim_ext.unavailable", __dir__)

def record_unavailable(reason)
  File.write(REASON_FILE, "#{reason}\n")
  warn "mallard: #{reason}; the glibc-trim configuration is unavailable"
  File.write("Makefile", dummy_makefile(__dir__).join)
end

unless have_header("malloc.h") && have_func("malloc_trim", "malloc.h")
  record_unavailable("malloc_trim is not available in this C library")
  return
end

# Ruby 3.3 replaced rb_postponed_job_register_one (now deprecated) with a preregistered handle.
have_func("rb_postponed_job_preregister", "ruby/debug.h")
have_func("rb_postponed_job_trigger", "ruby/debug.h")
have_func("rb_postponed_job_register_one", "ruby/debug.h")

FileUtils.rm_f(REASON_FILE)
$CFLAGS << " -Wall -Wextra -Wno-unused-parameter" # rubocop:disable Style/GlobalVars -- mkmf's interface
create_makefile("mallard/trim_ext")

# frozen_string_literal: true

# Builds mallard/trim_ext, the glibc-trim configuration's C extension. It is optional: where the C
# library has no malloc_trim (musl, macOS) this writes a Makefile that builds nothing, so
# `gem install mallard` still succeeds, and records why for lib/mallard/trim.rb to say so.
require "mkmf"
require_relative "../optional_extension"

unless have_header("malloc.h") && have_func("malloc_trim", "malloc.h")
  OptionalExtension.unavailable("trim_ext", "malloc_trim is not available in this C library",
                                "the glibc-trim configuration is unavailable", __dir__)
  return
end

# Ruby 3.3 replaced rb_postponed_job_register_one (now deprecated) with a preregistered handle.
have_func("rb_postponed_job_preregister", "ruby/debug.h")
have_func("rb_postponed_job_trigger", "ruby/debug.h")
have_func("rb_postponed_job_register_one", "ruby/debug.h")

OptionalExtension.available("trim_ext")
$CFLAGS << " -Wall -Wextra -Wno-unused-parameter" # rubocop:disable Style/GlobalVars -- mkmf's interface
create_makefile("mallard/trim_ext")

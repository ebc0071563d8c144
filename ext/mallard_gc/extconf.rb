# frozen_string_literal: true

# Builds mallard/gc_events_ext, the agent's per-GC timeline. It is optional and separate from the
# glibc-only trim extension: it needs only CRuby's internal GC event hooks and a monotonic clock. Where
# those are missing (a Ruby without ruby/debug.h such as JRuby or TruffleRuby, or no clock_gettime) this
# writes a Makefile that builds nothing, so `gem install mallard` still succeeds, and records why for the
# agent to say so.
require "mkmf"
require_relative "../optional_extension"

checks = {
  "ruby/debug.h is missing (not CRuby?)" => -> { have_header("ruby/debug.h") },
  "this Ruby has no GC enter/exit events" => lambda {
    have_macro("RUBY_INTERNAL_EVENT_GC_ENTER", "ruby/debug.h") &&
      have_macro("RUBY_INTERNAL_EVENT_GC_END_SWEEP", "ruby/debug.h")
  },
  "this Ruby does not export rb_gc_stat and rb_gc_latest_gc_info" => lambda {
    have_func("rb_gc_stat", "ruby.h") && have_func("rb_gc_latest_gc_info", "ruby.h")
  },
  "clock_gettime is not available" => -> { have_func("clock_gettime", "time.h") }
}
failed = checks.find { |_reason, check| !check.call }
if failed
  OptionalExtension.unavailable("gc_events_ext", failed.first, "the agent will record no per-GC timeline", __dir__)
  return
end

OptionalExtension.available("gc_events_ext")
$CFLAGS << " -Wall -Wextra -Wno-unused-parameter" # rubocop:disable Style/GlobalVars -- mkmf's interface
create_makefile("mallard/gc_events_ext")

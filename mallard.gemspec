# frozen_string_literal: true

require_relative "lib/mallard/version"

Gem::Specification.new do |spec|
  spec.name = "mallard"
  spec.version = Mallard::VERSION
  spec.authors = ["The mallard developers"]
  spec.summary = "A memory lab for Ruby and Rails applications"
  spec.description = <<~TEXT
    Runs your Ruby app under the memory configurations worth trying (glibc, MALLOC_ARENA_MAX,
    jemalloc, tcmalloc, mimalloc), drives it with real external load and tells you where the
    memory goes, which configuration shrinks it, at what cost, and how to deploy it.
  TEXT
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.1"
  spec.metadata["rubygems_mfa_required"] = "true"

  spec.files = Dir["lib/**/*.{rb,lua}", "ext/**/*.{c,rb}", "exe/*", "examples/**/*", "README.md", "docs/**/*",
                   "LICENSE"]
  # All optional: each builds nothing (and says why) where the C library has no malloc_trim, where Ruby has no
  # internal GC event hooks, where there is no dlsym to find the allocator's statistics with, or where there is
  # no POSIX read for the heap-dump scan (which then runs in Ruby).
  spec.extensions = ["ext/mallard/extconf.rb", "ext/mallard_gc/extconf.rb", "ext/mallard_malloc_stats/extconf.rb",
                     "ext/mallard_heap_scan/extconf.rb"]
  spec.bindir = "exe"
  spec.executables = ["mallard"]
  spec.require_paths = ["lib"]

  # CPU pinning calls sched_setaffinity through Fiddle, a bundled gem from Ruby 4.0 on: under Bundler it loads
  # only when the bundle has it.
  spec.add_dependency "fiddle", ">= 1.0"
end

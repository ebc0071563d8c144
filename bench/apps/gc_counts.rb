# frozen_string_literal: true

# Loaded (RUBYOPT) by bench/agent_paired.rb into both servers of a pair: GC.stat's counts, GC time and heap size as
# "key value" lines, written to MALLARD_BENCH_GC_OUT.window when the bench sends SIGWINCH (as its counted load
# begins) and to MALLARD_BENCH_GC_OUT at exit, so the bench reads how often, and for how long, each variant collected
# while it was measured: boot's GCs (hundreds of milliseconds in a Rails app) left out. Puma does not use SIGWINCH.
out = ENV.fetch("MALLARD_BENCH_GC_OUT")
keys = %i[count minor_gc_count major_gc_count time heap_allocated_pages]
write = ->(path) { File.write(path, GC.stat.slice(*keys).map { |key, value| "#{key} #{value}\n" }.join) }
Signal.trap("WINCH") { write.call("#{out}.window") }
at_exit { write.call(out) }

# frozen_string_literal: true

# Loaded (RUBYOPT) by bench/agent_paired.rb into both servers of a pair: GC.stat's counts and heap size written at
# exit to MALLARD_BENCH_GC_OUT, "key value" lines, so a bench reads how often each variant collected.
at_exit do
  stat = GC.stat
  File.write(ENV.fetch("MALLARD_BENCH_GC_OUT"),
             %i[count minor_gc_count major_gc_count heap_allocated_pages].map { |key| "#{key} #{stat[key]}\n" }.join)
end

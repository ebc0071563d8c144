# frozen_string_literal: true

require_relative "stored_summaries"

# A heap summary as `mallard heap` would give the views, built here (there is no stored heap run): two sites, one
# of them significant, named by what a hostile app might allocate from, a window of generations 11 to 20 among 30
# buckets, three dumps, the app's latency meanwhile, and the stored leaky soak as the soak that ran.
module HeapSummaries
  include StoredSummaries

  HOSTILE_SITE = %(/app/<script>alert("x")</script>'.rb:7)

  def heap_hash
    { "kind" => "heap", "schema_version" => Mallard::Run::Directory::SCHEMA_VERSION, "status" => "complete",
      "window" => { "from" => 10, "to" => 20 },
      "retained_count" => 3_000, "retained_bytes" => 3_145_728, "significant_bytes" => 262_144,
      "methodology" => "Three dumps, A B C.", "tracing" => "allocation tracing was on",
      "sites" => [heap_site("/app/lib/cache.rb:12", "String", "app", [2_000, 2_097_152], significant: true),
                  heap_site(HOSTILE_SITE, "Hash", "rack", [1_000, 524_288])],
      "gems" => [{ "name" => "app", "count" => 2_000, "bytes" => 2_097_152 },
                 { "name" => "rack", "count" => 1_000, "bytes" => 524_288 }],
      "classes" => [{ "name" => "String", "count" => 2_000, "bytes" => 2_097_152 },
                    { "name" => "Hash", "count" => 1_000, "bytes" => 524_288 }],
      "generations" => (1..30).map { |g| { "generation" => g, "count" => g * 10, "bytes" => g * 4096 } },
      "dumps" => (0..2).map { |index| heap_dump(index) },
      "analysis" => { "mb_per_s" => 152.4, "seconds" => 0.31, "bytes" => 47_185_920, "peak_rss_kb" => 38_912 },
      "latency" => { "path" => "/", "during" => { "requests" => 41, "answered" => 41, "p50_ms" => 2.4, "max_ms" => 31.7,
                                                  "errors" => 0 },
                     "outside" => { "requests" => 90, "answered" => 90, "p50_ms" => 1.9, "max_ms" => 12.0,
                                    "errors" => 0 } },
      "soak" => soak_summary("soak-leaky", series: soak_series),
      "target" => stored("soak-leaky/summary.json")["target"] }
  end

  def heap_summary(hash = heap_hash) = Mallard::Summary::Heap.from_h(hash)

  # @param figures [Array(Integer, Integer)] objects and bytes
  def heap_site(site, klass, gem, figures, significant: false)
    { "site" => site, "file" => site.sub(/:\d+\z/, ""), "line" => site[/\d+\z/].to_i, "class" => klass, "gem" => gem,
      "count" => figures[0], "bytes" => figures[1], "significant" => significant }
  end

  def heap_dump(index)
    { "path" => "/runs/heap/heap-100-#{index + 1}.json", "bytes" => 15_728_640 + (index * 1_048_576),
      "objects" => 120_000 + (index * 1_500), "max_generation" => [10, 20, 30][index],
      "taken_at" => [7.5, 15.0, 22.5][index], "dump_s" => 0.8, "pid" => 100, "rss_kb" => 15_360 }
  end
end

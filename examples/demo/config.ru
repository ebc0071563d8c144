# frozen_string_literal: true

# mallard's demo app: the allocation pattern that fragments glibc malloc in threaded servers.
# Each request builds strings and arrays of widely varied sizes (as rendering, JSON and ORM rows
# do) on whichever Puma thread serves it, and keeps some of them in a shared cache that evicts
# at random, so long-lived and short-lived blocks interleave in every thread's arena.
CACHE_SLOTS = 4_000
CACHE = Array.new(CACHE_SLOTS)
LOCK = Mutex.new

def build_rows(random)
  Array.new(random.rand(20..60)) do
    { "id" => random.rand(1_000_000), "name" => "x" * random.rand(8..200),
      "payload" => "p" * random.rand(200..12_000), "tags" => Array.new(random.rand(1..8)) { "t" * random.rand(4..40) } }
  end
end

run(lambda do |_env|
  random = Random.new
  rows = build_rows(random)
  LOCK.synchronize { 4.times { CACHE[random.rand(CACHE_SLOTS)] = rows.sample(random: random)["payload"].dup } }
  body = rows.map { |row| "#{row['id']},#{row['name'].size},#{row['payload'].size}" }.join("\n")
  [200, { "content-type" => "text/plain" }, [body]]
end)

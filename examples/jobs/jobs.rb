# frozen_string_literal: true

# mallard's bundled job app: a Sidekiq job whose work fragments glibc's malloc arenas. Each job builds rows of
# widely varied sizes (as a report, an export or an ORM query does) on whichever of the worker's threads runs
# it, and keeps a few in a shared cache that evicts at random. With 20 threads glibc gives most of them an arena
# of their own, and each arena keeps the holes left between long- and short-lived blocks: the pattern behind
# Sidekiq workers of 1.5-2 GB that shrink to a third under jemalloc or with MALLOC_ARENA_MAX=2.
require "sidekiq"

# Sidekiq 6.4 with redis-rb 4.8 warns on every push and heartbeat that SADD will return an Integer; it does.
Redis.sadd_returns_boolean = false if defined?(Redis) && Redis.respond_to?(:sadd_returns_boolean=)

class ReportJob
  include Sidekiq::Worker

  # Shared by the worker's threads, evicting at random: long-lived blocks land between short-lived ones in
  # every thread's arena, as a process-wide cache (templates, lookups, memoised rows) does in a real worker.
  CACHE_SLOTS = 4_000
  CACHE = Array.new(CACHE_SLOTS)
  LOCK = Mutex.new

  def perform(seed)
    random = Random.new(seed)
    rows = Array.new(random.rand(20..60)) do
      { "id" => random.rand(1_000_000), "name" => "x" * random.rand(8..200),
        "payload" => "p" * random.rand(200..12_000), "tags" => Array.new(random.rand(1..8)) do
                                                                 "t" * random.rand(4..40)
                                                               end }
    end
    LOCK.synchronize { 4.times { CACHE[random.rand(CACHE_SLOTS)] = rows.sample(random: random)["payload"].dup } }
    rows.sum { |row| row["payload"].bytesize }
  end
end

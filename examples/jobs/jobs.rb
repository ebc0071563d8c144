# frozen_string_literal: true

# mallard's bundled job app: a Sidekiq job whose work fragments glibc's malloc arenas. Each job builds and
# drops strings of mixed sizes (small ones that stay in a thread's arena, and buffers large enough to go to
# malloc but below the mmap threshold), so with 20 worker threads glibc's per-thread arenas each keep holes that
# later jobs cannot reuse — the pattern behind Sidekiq workers of 1.5-2 GB that shrink to a third under jemalloc.
require "sidekiq"

# Sidekiq 6.4 with redis-rb 4.8 warns on every push and heartbeat that SADD will return an Integer; it does.
Redis.sadd_returns_boolean = false if defined?(Redis) && Redis.respond_to?(:sadd_returns_boolean=)

class ReportJob
  include Sidekiq::Worker

  SIZES = [48, 200, 1_500, 12_000, 90_000].freeze

  def perform(seed)
    random = Random.new(seed)
    kept = Array.new(120) { "x" * SIZES[random.rand(SIZES.size)] }
    # Drop every other string, then grow the survivors: the freed holes are too small for what comes next.
    kept.each_slice(2).map(&:first).each { |text| text << ("y" * random.rand(4_000)) }.sum(&:bytesize)
  end
end

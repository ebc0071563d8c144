# frozen_string_literal: true

# A small stand-in for a threaded server: eight threads allocate strings of varied sizes and
# keep a random few alive for a while, the pattern that spreads glibc's heap over many arenas.
# Runs until stopped.
RETAINED_PER_THREAD = 2_000

threads = Array.new(8) do |n|
  Thread.new do
    random = Random.new(n)
    kept = Array.new(RETAINED_PER_THREAD)
    loop do
      200.times { kept[random.rand(RETAINED_PER_THREAD)] = "x" * random.rand(16..4096) }
      Thread.pass
    end
  end
end
trap("TERM") { exit }
threads.each(&:join)

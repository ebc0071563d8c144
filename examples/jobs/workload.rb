# frozen_string_literal: true

# mallard's workload for the bundled job app: keeps the default queue about DEPTH jobs deep, pushing in bulk,
# until mallard stops it (TERM). Run by mallard with REDIS_URL set and Sidekiq's client loaded.
require "sidekiq"
require "sidekiq/api"
require_relative "jobs"

DEPTH = Integer(ENV.fetch("DEPTH", "400"))
BATCH = 200

running = true
trap("TERM") { running = false }
seed = 0
queue = Sidekiq::Queue.new("default")
while running
  missing = DEPTH - queue.size
  if missing.positive?
    args = Array.new([missing, BATCH].min) { [seed += 1] }
    Sidekiq::Client.push_bulk("class" => ReportJob, "args" => args)
  else
    sleep 0.02
  end
end

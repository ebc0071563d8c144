-- mallard's wrk script: round-robin request paths, an optional request cap, status code counts,
-- and one machine-readable line at the end.
--
-- Environment (set by Mallard::Probe::Wrk):
--   MALLARD_PATHS     request paths, one per line (default "/")
--   MALLARD_REQUESTS  total responses to wait for before stopping (default: no cap)
--   MALLARD_THREADS   wrk's -t, needed to split the cap: thread N+1 is set up only after thread N
--                     has started running, so setup() cannot count the threads itself
--   MALLARD_RATE      open loop: requests a second in all, split among the threads (default: closed loop)
--
-- Every request carries X-Request-Start: t=<microseconds since the epoch> (the header load balancers
-- such as Heroku's router and nginx set), so the app's agent can tell the wait before the app got the
-- request (queueing for a free server thread) from the time the app spent on it.
--
-- Open loop: each thread keeps a schedule of send times, one every threads / rate seconds, and
-- delay() gives the connection that asks the next free slot. A connection is only free once its answer
-- came, so when every connection is busy the slots go by unclaimed, and the requests that take them
-- later leave late: those are counted (with the latest lateness), since wrk measures latency from the
-- moment a request leaves, and a late request's latency understates what a user arriving on schedule
-- would have waited.
--
-- wrk 4.1 only ends when its -d sleep ends or it receives SIGINT: a thread that stops itself
-- with wrk.thread:stop() leaves the process sleeping. So each thread that reaches its share
-- prints MALLARD_CAPPED and the Ruby side, on seeing one per thread, sends SIGINT.

local threads = {}

-- LuaJIT's FFI reads the clocks (wrk's Lua has no clock of its own below a second).
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } mallard_timespec;
int clock_gettime(int clock_id, mallard_timespec *now);
]]
local REALTIME, MONOTONIC = 0, 1
local now_ts = ffi.new("mallard_timespec")

local function now_us(clock)
  ffi.C.clock_gettime(clock, now_ts)
  return tonumber(now_ts.tv_sec) * 1000000 + math.floor(tonumber(now_ts.tv_nsec) / 1000)
end

-- A request counts as late past this: the timer wakes on whole milliseconds.
local LATE_US = 2000

local function env_number(name)
  local value = tonumber(os.getenv(name) or "")
  if value and value > 0 then return math.floor(value) end
  return nil
end

-- Runs in the setup environment, once per thread, before the thread starts.
function setup(thread)
  local index = #threads
  table.insert(threads, thread)
  thread:set("id", index + 1)

  local cap = env_number("MALLARD_REQUESTS")
  if cap then
    local count = env_number("MALLARD_THREADS") or 1
    local share = math.floor(cap / count)
    if index < cap % count then share = share + 1 end
    thread:set("share", share)
  end
end

-- Runs in each thread's own environment. Requests are built once, up to their blank line; request(),
-- called per request, only appends the start header.
function init(args)
  prepared = {}
  for path in string.gmatch(os.getenv("MALLARD_PATHS") or "/", "[^\n]+") do
    table.insert(prepared, (string.gsub(wrk.format(nil, path), "\r\n$", "")))
  end
  if #prepared == 0 then prepared[1] = (string.gsub(wrk.format(nil, "/"), "\r\n$", "")) end
  next_index = 0
  responses = 0
  statuses = {}
  capped = false
  local rate = tonumber(os.getenv("MALLARD_RATE") or "")
  if rate and rate > 0 then
    slot_us = 1000000 * (env_number("MALLARD_THREADS") or 1) / rate
  end
  late = 0
  max_late_us = 0
end

function request()
  next_index = next_index % #prepared + 1
  return prepared[next_index] .. string.format("X-Request-Start: t=%.0f\r\n\r\n", now_us(REALTIME))
end

-- Open loop only: wrk calls delay() (when defined) before each request after a connection's first.
function pace()
  local now = now_us(MONOTONIC)
  next_slot = next_slot or now
  local slot = next_slot
  next_slot = next_slot + slot_us
  local wait = slot - now
  if -wait > LATE_US then
    late = late + 1
    if -wait > max_late_us then max_late_us = -wait end
  end
  if wait <= 0 then return 0 end
  return math.floor(wait / 1000)
end

if (tonumber(os.getenv("MALLARD_RATE") or "") or 0) > 0 then delay = pace end

function response(status, headers, body)
  responses = responses + 1
  local key = tostring(status)
  statuses[key] = (statuses[key] or 0) + 1

  -- share is nil without a cap; the flag keeps the marker to one line per thread, since responses
  -- already read in the same event-loop turn still arrive after stop().
  if share and not capped and responses >= share then
    capped = true
    wrk.thread:stop()
    io.write(string.format("MALLARD_CAPPED %d\n", id))
    io.stdout:flush()
  end
end

-- JSON has no NaN or infinity; an empty histogram can produce either.
local function number(value)
  if value == nil or value ~= value or value == math.huge or value == -math.huge then return "0" end
  return string.format("%.0f", value)
end

local function object(pairs_list)
  local parts = {}
  for _, pair in ipairs(pairs_list) do
    -- Keys are fixed names and status codes (digits), so they need no escaping.
    table.insert(parts, "\"" .. pair[1] .. "\":" .. pair[2])
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

local function merged_statuses()
  local totals = {}
  for _, thread in ipairs(threads) do
    for code, count in pairs(thread:get("statuses") or {}) do
      totals[code] = (totals[code] or 0) + count
    end
  end
  local list = {}
  for code, count in pairs(totals) do table.insert(list, { code, number(count) }) end
  table.sort(list, function(a, b) return a[1] < b[1] end)
  return object(list)
end

local function lateness()
  local count, latest = 0, 0
  for _, thread in ipairs(threads) do
    count = count + (thread:get("late") or 0)
    latest = math.max(latest, thread:get("max_late_us") or 0)
  end
  return object({ { "late", number(count) }, { "max_late_us", number(latest) } })
end

function done(summary, latency, requests)
  local errors = summary.errors
  local line = object({
    { "requests", number(summary.requests) },
    { "duration_us", number(summary.duration) },
    { "errors", object({
      { "connect", number(errors.connect) }, { "read", number(errors.read) },
      { "write", number(errors.write) }, { "timeout", number(errors.timeout) },
      { "status", number(errors.status) },
    }) },
    { "latency_us", object({
      { "50", number(latency:percentile(50)) }, { "90", number(latency:percentile(90)) },
      { "99", number(latency:percentile(99)) }, { "max", number(latency.max) },
      { "mean", number(latency.mean) },
    }) },
    { "status_codes", merged_statuses() },
    { "pacing", lateness() },
  })
  io.write("MALLARD_JSON " .. line .. "\n")
  io.stdout:flush()
end

-- mallard's wrk script: round-robin request paths, an optional request cap, status code counts,
-- and one machine-readable line at the end.
--
-- Environment (set by Mallard::Probe::Wrk):
--   MALLARD_PATHS     request paths, one per line (default "/")
--   MALLARD_REQUESTS  total responses to wait for before stopping (default: no cap)
--   MALLARD_THREADS   wrk's -t, needed to split the cap: thread N+1 is set up only after thread N
--                     has started running, so setup() cannot count the threads itself
--
-- wrk 4.1 only ends when its -d sleep ends or it receives SIGINT: a thread that stops itself
-- with wrk.thread:stop() leaves the process sleeping. So each thread that reaches its share
-- prints MALLARD_CAPPED and the Ruby side, on seeing one per thread, sends SIGINT.

local threads = {}

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

-- Runs in each thread's own environment. Requests are built once: request() is called per request.
function init(args)
  prepared = {}
  for path in string.gmatch(os.getenv("MALLARD_PATHS") or "/", "[^\n]+") do
    table.insert(prepared, wrk.format(nil, path))
  end
  if #prepared == 0 then prepared[1] = wrk.format(nil, "/") end
  next_index = 0
  responses = 0
  statuses = {}
  capped = false
end

function request()
  next_index = next_index % #prepared + 1
  return prepared[next_index]
end

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
  })
  io.write("MALLARD_JSON " .. line .. "\n")
  io.stdout:flush()
end

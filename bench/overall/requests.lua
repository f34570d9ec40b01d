-- wrk script of the overall benchmark (bench/overall/loadgen.py writes its input).
--
-- Arguments after `--`: <requests file> <threads> [limit]. The file has one request per line,
-- "METHOD<TAB>PATH<TAB>BODY" (BODY may be empty). Thread i of n sends lines i, i+n, i+2n, ...
-- and wraps around, so a file of unique requests (new PDP URLs, many chats) is shared
-- without overlap. With a limit, each thread stops after limit/n responses.
-- done() prints one JSON line the harness reads: requests, seconds, latency percentiles (us)
-- and every kind of error (status counts HTTP statuses >= 400).

-- setup() runs in the main Lua state, init() in each thread's own: the id travels by set().
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end

local function split(line)
  local method, path, body = line:match("^([^\t]*)\t([^\t]*)\t?(.*)$")
  if body == "" then body = nil end
  return method, path, body
end

function init(args)
  local lines = {}
  for line in io.lines(args[1]) do
    if line ~= "" then table.insert(lines, line) end
  end
  local n = tonumber(args[2]) or 1
  requests = {}
  for index = id + 1, #lines, n do
    local method, path, body = split(lines[index])
    table.insert(requests, wrk.format(method, path, nil, body))
  end
  if #requests == 0 then
    local method, path, body = split(lines[(id % #lines) + 1])
    table.insert(requests, wrk.format(method, path, nil, body))
  end
  position = 0
  local limit = tonumber(args[3] or "")
  if limit then
    local mine = math.max(1, math.floor(limit / n))
    local seen = 0
    response = function(status, headers, body)
      seen = seen + 1
      if seen >= mine then wrk.thread:stop() end
    end
  end
end

function request()
  position = position % #requests + 1
  return requests[position]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "microseconds": %d, "p50": %d, "p90": %d, "p99": %d, "max": %d, ' ..
    '"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}\n',
    summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end

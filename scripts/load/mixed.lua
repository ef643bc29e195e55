-- A mixed registry workload for wrk: resolve 60 %, AASA 20 %, list 10 %, create 5 %, update 5 %.
-- Environment: TOKEN (admin bearer token), HOSTS (number of hosts), PER_HOST (experiences each).
local token = os.getenv("TOKEN")
local hosts = tonumber(os.getenv("HOSTS") or "20")
local perHost = tonumber(os.getenv("PER_HOST") or "50")
local counter, threadId = 0, 0
local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

local run = 0
function init(args)
  threadId = id
  -- A run stamp keeps created URLs unique across runs on the same database (warm-up, then measure).
  run = os.time() % 100000 * 10 + id
  math.randomseed(1000 + id)
end

local function enc(s)
  return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

function request()
  counter = counter + 1
  local h = math.random(0, hosts - 1)
  local roll = math.random()
  if roll < 0.60 then
    local url = string.format("https://shop%d.example/store/%d/menu?x=%d", h, math.random(0, perHost - 1), counter)
    return wrk.format("GET", "/v1/resolve?url=" .. enc(url))
  elseif roll < 0.80 then
    return wrk.format("GET", "/.well-known/apple-app-site-association", { ["Host"] = string.format("shop%d.example", h) })
  elseif roll < 0.90 then
    return wrk.format("GET", string.format("/v1/experiences?host=shop%d.example&limit=20", h), { ["Authorization"] = "Bearer " .. token })
  elseif roll < 0.95 then
    local body = string.format('{"url":"https://load%d.example/r%d/%d","clip":"ABCDE12345.com.example.load.Clip","title":"Load","subtitle":"Created under load"}', h, run, counter)
    return wrk.format("POST", "/v1/experiences", { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }, body)
  else
    local id = math.random(1, hosts * perHost)
    local body = string.format('{"subtitle":"Updated %d-%d"}', threadId, counter)
    return wrk.format("PATCH", "/v1/experiences/" .. id, { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }, body)
  end
end

local statuses = {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  io.write(string.format("requests %d\nerrors_connect %d\nerrors_read %d\nerrors_write %d\nerrors_status %d\nerrors_timeout %d\n",
    summary.requests, summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout))
  io.write(string.format("rps %.0f\np50_ms %.2f\np99_ms %.2f\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end

-- wrk script: POST /graphs/g1/mutate, one keyed Person insert per request
-- with a name no other request uses (each wrk thread gets its own prefix).
-- Each insert adds a fragment and an insert's manifest grows with them, so
-- a thread stops after OMNIGRAPH_BENCH_INSERTS responses (default 300, as
-- many as graph_bench's embedded inserts) and both latencies are measured
-- over the same range of fragment counts.
local counter = 0
local responses = 0
local limit = tonumber(os.getenv("OMNIGRAPH_BENCH_INSERTS") or "300")
local prefix = string.format("w%d-%d-", os.time(), math.random(0, 1000000))
wrk.method = "POST"
wrk.path = "/graphs/" .. (os.getenv("OMNIGRAPH_BENCH_GRAPH") or "g1") .. "/mutate"
wrk.headers["Content-Type"] = "application/json"
request = function()
  counter = counter + 1
  local body = string.format(
    '{"query":"query add($name: String) { insert Person { name: $name, age: 1 } }","params":{"name":"%s%d"}}',
    prefix, counter)
  return wrk.format(nil, nil, nil, body)
end
response = function(status, headers, body)
  responses = responses + 1
  if responses >= limit then wrk.thread:stop() end
end

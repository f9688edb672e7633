-- wrk script: POST /graphs/g1/mutate, one keyed Person insert per request
-- with a name no other request uses (each wrk thread gets its own prefix).
local counter = 0
local prefix = string.format("w%d-%d-", os.time(), math.random(0, 1000000))
wrk.method = "POST"
wrk.path = "/graphs/g1/mutate"
wrk.headers["Content-Type"] = "application/json"
request = function()
  counter = counter + 1
  local body = string.format(
    '{"query":"query add($name: String) { insert Person { name: $name, age: 1 } }","params":{"name":"%s%d"}}',
    prefix, counter)
  return wrk.format(nil, nil, nil, body)
end

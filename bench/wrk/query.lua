-- wrk script: POST /graphs/g1/query, the 1-hop neighbours of a random
-- person of graph_bench's graph (p0 … p99999).
math.randomseed(42)
local source = "query neighbours($name: String) { match { $p: Person { name: $name }  $p knows $f } return { $f.name } }"
wrk.method = "POST"
wrk.path = "/graphs/g1/query"
wrk.headers["Content-Type"] = "application/json"
request = function()
  local body = string.format('{"query":"%s","params":{"name":"p%d"}}', source, math.random(0, 99999))
  return wrk.format(nil, nil, nil, body)
end

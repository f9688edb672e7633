// server.conformance: every path+method of openapi.json against a live
// omnigraph-server (booted by run_server_test.py with the fixture graph g1).
//
//   OG_BASE_URL=http://ip:port OG_TOKENS_JSON='{"admin":..}' node conformance.mjs openapi.json
//
// For each operation: one or more well-formed requests with an exact expected
// status; for POST also malformed JSON, a wrong content type; for every
// protected route an unauthenticated request. Each response must (a) carry a
// status the contract lists for the operation, or one from the short
// allow-list below (server.md names it), (b) validate against the contract's
// schema for that status and media type, (c) be ErrorOutput JSON when it is an
// error. Then the edge cases of server.md §1.2/§1.3: unknown path, wrong
// method, bad graph ids, body limits, Omnigraph-If-Graph-Commit parsing;
// the route semantics §1.2 pins; and, with OG_PHASE=admission (a second
// server with a 64-byte per-actor budget), the 429s of §1.7.
import {
  request, bearer, operations, loadContract, errorOutputSchema, Checker, describe,
} from './common.mjs';

const BASE = process.env.OG_BASE_URL;
const TOKENS = JSON.parse(process.env.OG_TOKENS_JSON);
const SCHEMA_SOURCE = process.env.OG_SCHEMA_SOURCE;
const QUERY_NAMES = JSON.parse(process.env.OG_QUERY_NAMES);
const { spec, validate } = loadContract(process.argv[2]);
const check = new Checker('server.conformance');
const ADMIN = bearer(TOKENS.admin);
const JSON_CT = { 'content-type': 'application/json' };

// Statuses a request may get although its operation does not list them,
// keyed by the kind of request; each names the server.md clause.
const ALLOWED_EXTRA = {
  unauthenticated: { 401: 'server.md §1.4: missing bearer token' },
  malformed_json: { 400: 'server.md §1.3: malformed JSON body (syntax) is 400' },
  wrong_content_type: { 415: 'server.md §1.3: wrong content type is 415' },
  unknown_graph: { 404: "server.md §1.2: unknown graph id → 404 graph '<id>' not found" },
  bad_graph_id: { 400: 'server.md §1.2: invalid graph id in the URL → 400' },
  oversized: { 413: 'server.md §1.3: body over the route limit (1 MiB, 32 MiB for /load)' },
  wrong_method: { 405: 'server.md §1.3: wrong method → 405 (JSON ErrorOutput per §1.3 recommendation)' },
  unknown_path: { 404: 'server.md §1.3: unknown path → 404' },
  precondition: { 400: 'server.md §1.2: malformed Omnigraph-If-Graph-Commit → 400' },
  engine_error: {
    400: 'server.md §1.5: engine BadRequest (e.g. deleting main) → 400',
    404: 'server.md §1.5: branch not found → 404',
  },
  off_contract: { 200: 'server.md §1.2: GET /openapi.json is served but not itself in the document' },
};

// ---------------------------------------------------------------------------
// Response checks
// ---------------------------------------------------------------------------

// The contract's response object for (operation, status), or undefined.
function contractResponse(op, status) {
  return op ? op.responses[String(status)] : undefined;
}

// Checks an NDJSON body: every line a JSON object; with a `schema`, the
// last line validates against it and the others are entity records (the
// baseline stream; export declares no schema).
function checkNdjson(label, body, schema, detail) {
  const lines = body.split('\n').filter((l) => l.length > 0);
  const parsed = [];
  for (const [i, line] of lines.entries()) {
    let value;
    try { value = JSON.parse(line); } catch { value = undefined; }
    if (!check.expect(value && typeof value === 'object' && !Array.isArray(value),
      `${label}: NDJSON line ${i + 1} is a JSON object`, detail)) return parsed;
    parsed.push(value);
  }
  if (schema) {
    check.expect(parsed.length > 0, `${label}: NDJSON has a final record`, detail);
    if (parsed.length === 0) return parsed;
    const errors = validate(schema, parsed[parsed.length - 1]);
    check.expect(!errors, `${label}: final NDJSON record matches schema (${errors})`, detail);
    for (const [i, rec] of parsed.slice(0, -1).entries()) {
      check.expect('type' in rec || 'edge' in rec, `${label}: NDJSON record ${i + 1} is an entity record`, detail);
    }
  }
  return parsed;
}

// Checks one response against the contract; returns the parsed JSON body
// (or the NDJSON records, or undefined).
function checkResponse(label, kind, method, op, req, res) {
  const detail = describe(req, res);
  const declared = contractResponse(op, res.status);
  const extra = (ALLOWED_EXTRA[kind] || {})[res.status];
  check.expect(declared !== undefined || extra !== undefined,
    `${label}: status ${res.status} is listed by the contract (or allowed for ${kind})`, detail);
  const contentType = (res.headers['content-type'] || '').split(';')[0].trim();
  const content = declared && declared.content ? declared.content : undefined;

  // HEAD and declared bodiless responses: no body at all.
  if (method === 'HEAD' || (declared && !content && res.status < 400)) {
    check.expect(res.body === '', `${label}: bodiless response has no body`, detail);
    return undefined;
  }
  if (res.status >= 400) {
    // (c) every error is ErrorOutput JSON.
    check.expect(contentType === 'application/json', `${label}: error is application/json (got ${contentType})`, detail);
    let body;
    try { body = JSON.parse(res.body); } catch { body = undefined; }
    if (!check.expect(body !== undefined, `${label}: error body parses as JSON`, detail)) return undefined;
    const errors = validate(errorOutputSchema, body);
    check.expect(!errors, `${label}: error body is ErrorOutput (${errors})`, detail);
    if (content && content['application/json']) {
      const e2 = validate(content['application/json'].schema, body);
      check.expect(!e2, `${label}: error body matches the contract schema for ${res.status} (${e2})`, detail);
    }
    return body;
  }
  if (!content) return undefined;
  if (!check.expect(contentType in content,
    `${label}: content type ${contentType} is one the contract lists (${Object.keys(content)})`, detail)) return undefined;
  const schema = content[contentType].schema;
  if (contentType === 'application/x-ndjson') return checkNdjson(label, res.body, schema, detail);
  if (contentType !== 'application/json') return undefined;
  let body;
  try { body = JSON.parse(res.body); } catch { body = undefined; }
  if (!check.expect(body !== undefined, `${label}: body parses as JSON`, detail)) return undefined;
  if (schema) {
    const errors = validate(schema, body);
    check.expect(!errors, `${label}: body matches the contract schema for ${res.status} (${errors})`, detail);
  }
  return body;
}

// Sends `req`, checks its exact status and the contract; returns
// {res, body}. `op` is the contract operation (undefined for off-contract
// requests such as unknown paths).
async function exchange(label, kind, op, req, expectStatus) {
  let res;
  try {
    res = await request(BASE, req);
  } catch (e) {
    check.expect(false, `${label}: request failed (${e.code || e.message})`, describe(req, undefined));
    return { res: undefined, body: undefined };
  }
  check.expect(res.status === expectStatus, `${label}: status ${res.status}, expected ${expectStatus}`,
    describe(req, res));
  const body = checkResponse(label, kind, req.method, op, req, res);
  return { res, body };
}

// ---------------------------------------------------------------------------
// The well-formed requests, one or more per operation, run in order (later
// ones use ids the earlier ones returned, e.g. commit ids).
// ---------------------------------------------------------------------------

const PEOPLE_SOURCE = 'query people() { match { $p: Person } return { $p.name } order { $p.name } }';
const ADD_SOURCE = 'query add_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }';
const json = (value) => JSON.stringify(value);

// State shared between cases (commit ids).
const ctx = { head: undefined, firstCommit: undefined };

async function refreshHead() {
  const res = await request(BASE, { method: 'GET', path: '/graphs/g1/commits?branch=main', headers: ADMIN });
  const commits = JSON.parse(res.body).commits;
  ctx.head = commits[0].graph_commit_id;
  ctx.firstCommit = commits[commits.length - 1].graph_commit_id;
  return ctx.head;
}

// Each case: key "METHOD template", a request builder, the exact expected
// status, and an optional check of the parsed body.
const CASES = [
  { key: 'GET /healthz', req: () => ({ method: 'GET', path: '/healthz' }), status: 200,
    then: (b) => check.expect(b.status === 'ok', `healthz status is "ok" (got ${b.status})`) },
  { key: 'GET /graphs', req: () => ({ method: 'GET', path: '/graphs', headers: ADMIN }), status: 200,
    then: (b) => check.expect(json(b.graphs.map((g) => g.graph_id)) === '["g1"]',
      `graph list is exactly [g1] (got ${json(b.graphs)})`) },
  { key: 'GET /graphs/{graph_id}/snapshot', req: () => ({ method: 'GET', path: '/graphs/g1/snapshot?branch=main', headers: ADMIN }), status: 200 },
  { key: 'GET /graphs/{graph_id}/schema', req: () => ({ method: 'GET', path: '/graphs/g1/schema', headers: ADMIN }), status: 200,
    then: (b) => check.expect(b.schema_source === SCHEMA_SOURCE, 'schema_source is the schema the graph was created with',
      json(b.schema_source)) },
  { key: 'GET /graphs/{graph_id}/queries', req: () => ({ method: 'GET', path: '/graphs/g1/queries', headers: ADMIN }), status: 200,
    then: (b) => {
      const names = b.queries.map((q) => q.name).sort();
      check.expect(json(names) === json(QUERY_NAMES), `stored query catalog is ${json(QUERY_NAMES)} (got ${json(names)})`);
      const mut = Object.fromEntries(b.queries.map((q) => [q.name, q.mutation]));
      check.expect(mut.people === false && mut.add_person === true, `catalog mutation flags (got ${json(mut)})`);
    } },
  { key: 'GET /graphs/{graph_id}/branches', req: () => ({ method: 'GET', path: '/graphs/g1/branches', headers: ADMIN }), status: 200,
    then: (b) => check.expect(json(b.branches) === '["main"]' || json(b.branches.map((x) => x.name ?? x)) === '["main"]',
      `branch list is [main] (got ${json(b.branches)})`) },
  { key: 'GET /graphs/{graph_id}/commits', req: () => ({ method: 'GET', path: '/graphs/g1/commits?branch=main', headers: ADMIN }), status: 200,
    then: (b) => { ctx.head = b.commits[0].graph_commit_id; ctx.firstCommit = b.commits[b.commits.length - 1].graph_commit_id; } },
  { key: 'GET /graphs/{graph_id}/commits/{commit_id}', req: () => ({ method: 'GET', path: `/graphs/g1/commits/${ctx.head}`, headers: ADMIN }), status: 200,
    then: (b) => check.expect(b.graph_commit_id === ctx.head, `commit show echoes the id (got ${b.graph_commit_id})`) },
  { key: 'GET /graphs/{graph_id}/commits/{commit_id}/changes', req: () => ({ method: 'GET', path: `/graphs/g1/commits/${ctx.head}/changes`, headers: ADMIN }), status: 200 },
  { key: 'GET /graphs/{graph_id}/changes', req: () => ({ method: 'GET', path: '/graphs/g1/changes?branch=main&start=beginning', headers: ADMIN }), status: 200 },
  // The fixture schema has no Blob property: asking for one is a bad request.
  { key: 'GET /graphs/{graph_id}/blob', req: () => ({ method: 'GET', path: '/graphs/g1/blob?entity=node&type=Person&id=alice&property=name&branch=main', headers: ADMIN }), status: 400 },
  { key: 'HEAD /graphs/{graph_id}/blob', req: () => ({ method: 'HEAD', path: '/graphs/g1/blob?entity=node&type=Person&id=alice&property=name&branch=main', headers: ADMIN }), status: 400 },
  { key: 'POST /graphs/{graph_id}/query', req: () => ({ method: 'POST', path: '/graphs/g1/query', headers: { ...ADMIN, ...JSON_CT }, body: json({ query: PEOPLE_SOURCE, branch: 'main' }) }), status: 200,
    then: (b) => {
      check.expect(b.row_count === 2, `query row_count is 2 (got ${b.row_count})`);
      check.expect(typeof b.graph_commit_id === 'string' && b.graph_commit_id === ctx.head, `query graph_commit_id is main's head (got ${b.graph_commit_id}, head ${ctx.head})`);
    } },
  { key: 'POST /graphs/{graph_id}/read', req: () => ({ method: 'POST', path: '/graphs/g1/read', headers: { ...ADMIN, ...JSON_CT }, body: json({ query_source: PEOPLE_SOURCE, branch: 'main' }) }), status: 200,
    then: (b, res) => {
      check.expect(b.row_count === 2, `read row_count is 2 (got ${b.row_count})`);
      check.expect(!('graph_commit_id' in b), 'legacy /read body has no graph_commit_id');
      check.expect(res.headers.deprecation === 'true', `/read carries Deprecation: true (got ${res.headers.deprecation})`);
    } },
  { key: 'POST /graphs/{graph_id}/queries/{name}', req: () => ({ method: 'POST', path: '/graphs/g1/queries/people', headers: { ...ADMIN, ...JSON_CT }, body: json({ branch: 'main' }) }), status: 200,
    then: (b) => check.expect(b.row_count === 2, `stored query people row_count is 2 (got ${b.row_count})`) },
  { key: 'POST /graphs/{graph_id}/export', req: () => ({ method: 'POST', path: '/graphs/g1/export', headers: { ...ADMIN, ...JSON_CT }, body: json({ branch: 'main', type_names: [] }) }), status: 200,
    then: (records) => check.expect(records.length === 4, `export has 4 records (3 nodes, 1 edge; got ${records.length})`) },
  { key: 'POST /graphs/{graph_id}/changes/baseline', req: () => ({ method: 'POST', path: '/graphs/g1/changes/baseline', headers: { ...ADMIN, ...JSON_CT }, body: json({ branch: 'main' }) }), status: 200,
    then: (records) => check.expect(records.length === 5, `baseline has 4 entity records + the baseline envelope (got ${records.length})`) },
  { key: 'POST /graphs/{graph_id}/mutate', req: () => ({ method: 'POST', path: '/graphs/g1/mutate', headers: { ...ADMIN, ...JSON_CT }, body: json({ query: ADD_SOURCE, params: { name: 'carol', age: 41 }, branch: 'main' }) }), status: 200,
    then: (b) => {
      check.expect(b.affected_nodes === 1 && b.affected_edges === 0, `mutate affected 1 node, 0 edges (got ${b.affected_nodes}, ${b.affected_edges})`);
      check.expect(b.actor_id === 'admin', `mutate echoes actor_id admin (got ${b.actor_id})`);
    } },
  { key: 'POST /graphs/{graph_id}/change', req: () => ({ method: 'POST', path: '/graphs/g1/change', headers: { ...ADMIN, ...JSON_CT }, body: json({ query: ADD_SOURCE, params: { name: 'dave', age: 52 }, branch: 'main' }) }), status: 200,
    then: (b, res) => {
      check.expect(b.affected_nodes === 1, `change affected 1 node (got ${b.affected_nodes})`);
      check.expect(res.headers.deprecation === 'true', `/change carries Deprecation: true (got ${res.headers.deprecation})`);
    } },
  { key: 'POST /graphs/{graph_id}/mutate/if-graph-commit', before: refreshHead,
    req: () => ({ method: 'POST', path: '/graphs/g1/mutate/if-graph-commit', headers: { ...ADMIN, ...JSON_CT, 'omnigraph-if-graph-commit': ctx.head }, body: json({ query: ADD_SOURCE, params: { name: 'erin', age: 23 }, branch: 'main' }) }), status: 200,
    then: (b) => check.expect(b.affected_nodes === 1, `conditional mutate affected 1 node (got ${b.affected_nodes})`) },
  { key: 'POST /graphs/{graph_id}/queries/{name}/if-graph-commit', before: refreshHead,
    req: () => ({ method: 'POST', path: '/graphs/g1/queries/add_person/if-graph-commit', headers: { ...ADMIN, ...JSON_CT, 'omnigraph-if-graph-commit': ctx.head }, body: json({ params: { name: 'frank', age: 60 }, branch: 'main' }) }), status: 200,
    then: (b) => check.expect(b.affected_nodes === 1, `conditional stored mutation affected 1 node (got ${b.affected_nodes})`) },
  { key: 'POST /graphs/{graph_id}/load', req: () => ({ method: 'POST', path: '/graphs/g1/load', headers: { ...ADMIN, ...JSON_CT }, body: json({ branch: 'main', mode: 'merge', data: '{"type":"Team","data":{"slug":"infra"}}\n' }) }), status: 200 },
  { key: 'POST /graphs/{graph_id}/ingest', req: () => ({ method: 'POST', path: '/graphs/g1/ingest', headers: { ...ADMIN, ...JSON_CT }, body: json({ branch: 'main', mode: 'merge', data: '{"type":"Team","data":{"slug":"web"}}\n' }) }), status: 200,
    then: (b, res) => check.expect(res.headers.deprecation === 'true', `/ingest carries Deprecation: true (got ${res.headers.deprecation})`) },
  { key: 'POST /graphs/{graph_id}/load/ndjson', req: () => ({ method: 'POST', path: '/graphs/g1/load/ndjson?branch=main&mode=merge', headers: { ...ADMIN, 'content-type': 'application/x-ndjson' }, body: '{"type":"Team","data":{"slug":"ops"}}\n{"edge":"MemberOf","from":"bob","to":"ops"}\n' }), status: 200 },
  { key: 'POST /graphs/{graph_id}/branches', req: () => ({ method: 'POST', path: '/graphs/g1/branches', headers: { ...ADMIN, ...JSON_CT }, body: json({ name: 'feature', from: 'main' }) }), status: 200 },
  { key: 'POST /graphs/{graph_id}/mutate', req: () => ({ method: 'POST', path: '/graphs/g1/mutate', headers: { ...ADMIN, ...JSON_CT }, body: json({ query: ADD_SOURCE, params: { name: 'gina', age: 33 }, branch: 'feature' }) }), status: 200,
    then: (b) => check.expect(b.branch === 'feature', `mutate on feature reports branch feature (got ${b.branch})`) },
  { key: 'POST /graphs/{graph_id}/branches/merge', req: () => ({ method: 'POST', path: '/graphs/g1/branches/merge', headers: { ...ADMIN, ...JSON_CT }, body: json({ source: 'feature', target: 'main' }) }), status: 200 },
  { key: 'DELETE /graphs/{graph_id}/branches/{branch}', req: () => ({ method: 'DELETE', path: '/graphs/g1/branches/feature', headers: ADMIN }), status: 200 },
  // Cluster-backed serving never applies a schema: 409 after the authz check
  // (a malformed body is a 400 and a wrong content type a 415 before it, as
  // on every route).
  { key: 'POST /graphs/{graph_id}/schema/apply', req: () => ({ method: 'POST', path: '/graphs/g1/schema/apply', headers: { ...ADMIN, ...JSON_CT }, body: json({ schema_source: SCHEMA_SOURCE }) }), status: 409 },
  // After everything: main has the 2 seeded + 5 added people (carol, dave,
  // erin, frank, gina via the merge).
  { key: 'POST /graphs/{graph_id}/query', req: () => ({ method: 'POST', path: '/graphs/g1/query', headers: { ...ADMIN, ...JSON_CT }, body: json({ query: PEOPLE_SOURCE, branch: 'main' }) }), status: 200,
    then: (b) => check.expect(json(b.rows.map((r) => Object.values(r)[0])) === json(['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina']),
      `main's people after the writes (got ${json(b.rows)})`) },
];

// ---------------------------------------------------------------------------
// Derived variants: unauthenticated, malformed JSON, wrong content type,
// unknown graph, bad graph id. None of them may have an effect.
// ---------------------------------------------------------------------------

function withoutAuth(req) {
  const headers = { ...(req.headers || {}) };
  delete headers.authorization;
  return { ...req, headers };
}

function variants(c) {
  const base = c.req();
  const out = [];
  if (c.key !== 'GET /healthz') {
    out.push({ kind: 'unauthenticated', req: withoutAuth(base), status: 401 });
  }
  if (c.key.startsWith('GET /graphs/{graph_id}') || c.key.startsWith('POST /graphs/{graph_id}') ||
      c.key.startsWith('DELETE /graphs/{graph_id}') || c.key.startsWith('HEAD /graphs/{graph_id}')) {
    out.push({ kind: 'unknown_graph', req: { ...base, path: base.path.replace('/graphs/g1/', '/graphs/nope/') }, status: 404,
      then: (b) => b && check.expect(b.error === "graph 'nope' not found", `${c.key}: unknown graph message (got ${b.error})`) });
    out.push({ kind: 'bad_graph_id', req: { ...base, path: base.path.replace('/graphs/g1/', '/graphs/g_1/') }, status: 400 });
  }
  if (base.method === 'POST') {
    const ct = base.headers['content-type'];
    const override = c.variantStatus || {};
    out.push({ kind: 'malformed_json', req: { ...base, body: ct === 'application/json' ? '{"query": ' : '{"type":"Team","data":{' },
      status: override.malformed_json ?? 400 });
    out.push({ kind: 'wrong_content_type',
      req: { ...base, headers: { ...base.headers, 'content-type': ct === 'application/json' ? 'text/plain' : 'application/json' } },
      status: override.wrong_content_type ?? 415 });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Off-table edge cases
// ---------------------------------------------------------------------------

async function edgeCases(opOf) {
  const snapshotOp = opOf('GET /graphs/{graph_id}/snapshot');
  const queryOp = opOf('POST /graphs/{graph_id}/query');
  const loadOp = opOf('POST /graphs/{graph_id}/load');
  const condOp = opOf('POST /graphs/{graph_id}/mutate/if-graph-commit');
  const mutateOp = opOf('POST /graphs/{graph_id}/mutate');

  // Unknown paths → 404, wrong methods → 405, both ErrorOutput JSON.
  for (const path of ['/nope', '/graphs/g1/nope', '/graphs/g1/commits/x/y/z']) {
    await exchange(`unknown path ${path}`, 'unknown_path', undefined, { method: 'GET', path, headers: ADMIN }, 404);
  }
  for (const [method, path] of [['PUT', '/graphs/g1/snapshot'], ['DELETE', '/healthz'], ['POST', '/graphs'], ['GET', '/graphs/g1/query']]) {
    await exchange(`wrong method ${method} ${path}`, 'wrong_method', undefined, { method, path, headers: ADMIN }, 405);
  }

  // Graph ids: traversal and characters outside [a-zA-Z0-9-] → 400.
  for (const id of ['..%2Fx', 'a_b', '..', 'g1%00', 'g%C3%A9', 'policies', 'healthz', 'openapi', 'graphs', 'x'.repeat(65)]) {
    await exchange(`bad graph id ${id}`, 'bad_graph_id', snapshotOp, { method: 'GET', path: `/graphs/${id}/snapshot`, headers: ADMIN }, 400);
  }
  await exchange('64-char unknown graph id', 'unknown_graph', snapshotOp, { method: 'GET', path: `/graphs/${'x'.repeat(64)}/snapshot`, headers: ADMIN }, 404);

  // Body limits (server.md §1.3): /query takes exactly 1 MiB, one byte more
  // is 413; /load takes 2 MiB (its limit is 32 MiB) and 32 MiB + 1 is 413.
  // Each over-limit case twice: a declared Content-Length (answered from the
  // header, no body sent) and a chunked body (counted while reading).
  // Padding is JSON whitespace, so the bodies are otherwise valid.
  const MiB = 1024 * 1024;
  const pad = (obj, size) => { const s = json(obj); return s + ' '.repeat(size - Buffer.byteLength(s)); };
  const post = (path, body, extra = {}) => ({ method: 'POST', path, headers: { ...ADMIN, ...JSON_CT }, body, ...extra });
  const queryBody = { query: PEOPLE_SOURCE, branch: 'main' };
  const loadBody = { branch: 'main', mode: 'merge', data: '{"type":"Team","data":{"slug":"big"}}\n' };
  const limitDetail = (label, limit) => (r) => r.body && check.expect(
    json(r.body.resource_limit) === json({ resource: 'request_body_bytes', limit, actual: r.body.resource_limit?.actual }) &&
    r.body.resource_limit.actual > limit, `${label}: resource_limit {request_body_bytes, ${limit}, actual > limit} (got ${json(r.body.resource_limit)})`);
  await exchange('query body of exactly 1 MiB', 'ok', queryOp, post('/graphs/g1/query', pad(queryBody, MiB)), 200);
  await exchange('query body of exactly 1 MiB, chunked', 'ok', queryOp, post('/graphs/g1/query', pad(queryBody, MiB), { chunked: true }), 200);
  limitDetail('query 1 MiB + 1 declared', MiB)(await exchange('query body of 1 MiB + 1, declared length', 'oversized', queryOp,
    post('/graphs/g1/query', pad(queryBody, MiB + 1), { declareOnly: true }), 413));
  limitDetail('query 1 MiB + 1 chunked', MiB)(await exchange('query body of 1 MiB + 1, chunked', 'oversized', queryOp,
    post('/graphs/g1/query', pad(queryBody, MiB + 1), { chunked: true }), 413));
  await exchange('load body of 2 MiB', 'ok', loadOp, post('/graphs/g1/load', pad(loadBody, 2 * MiB)), 200);
  await exchange('load body of 2 MiB, chunked', 'ok', loadOp, post('/graphs/g1/load', pad(loadBody, 2 * MiB), { chunked: true }), 200);
  limitDetail('load 32 MiB + 1 declared', 32 * MiB)(await exchange('load body of 32 MiB + 1, declared length', 'oversized', loadOp,
    post('/graphs/g1/load', pad(loadBody, 32 * MiB + 1), { declareOnly: true }), 413));
  limitDetail('load 32 MiB + 1 chunked', 32 * MiB)(await exchange('load body of 32 MiB + 1, chunked', 'oversized', loadOp,
    post('/graphs/g1/load', pad(loadBody, 32 * MiB + 1), { chunked: true }), 413));

  // Omnigraph-If-Graph-Commit, on both conditional routes: malformed →
  // 400, missing → 400, a stale commit → 412 with precondition_failure.
  const head = await refreshHead();
  const routes = [
    ['/graphs/g1/mutate/if-graph-commit', condOp, { query: ADD_SOURCE, params: { name: 'zed', age: 1 }, branch: 'main' }],
    ['/graphs/g1/queries/add_person/if-graph-commit', opOf('POST /graphs/{graph_id}/queries/{name}/if-graph-commit'),
      { params: { name: 'zed', age: 1 }, branch: 'main' }],
  ];
  for (const [path, routeOp, body] of routes) {
    const cond = (value) => ({ method: 'POST', path, headers: { ...ADMIN, ...JSON_CT, 'omnigraph-if-graph-commit': value }, body: json(body) });
    for (const value of ['*', 'W/"x"', `"${head}"`, `${head}, ${head}`, [head, head], '']) {
      await exchange(`${path} If-Graph-Commit ${json(value)}`, 'precondition', routeOp, cond(value), 400);
    }
    const missing = cond('x');
    delete missing.headers['omnigraph-if-graph-commit'];
    await exchange(`${path} If-Graph-Commit missing`, 'precondition', routeOp, missing, 400);
    const stale = await exchange(`${path} If-Graph-Commit stale (first commit)`, 'ok', routeOp, cond(ctx.firstCommit), 412);
    if (stale.body) {
      const pf = stale.body.precondition_failure;
      check.expect(pf && pf.expected === ctx.firstCommit && pf.actual === head,
        `${path}: 412 precondition_failure is {expected: first commit, actual: head} (got ${json(pf)})`, describe(cond(ctx.firstCommit), stale.res));
      check.expect(stale.body.code === undefined, `${path}: 412 carries no code (the enum is closed; got ${stale.body.code})`);
    }
  }
  await exchange('If-Graph-Commit on plain /mutate', 'precondition', mutateOp,
    { method: 'POST', path: '/graphs/g1/mutate', headers: { ...ADMIN, ...JSON_CT, 'omnigraph-if-graph-commit': head },
      body: json({ query: ADD_SOURCE, params: { name: 'zed', age: 1 }, branch: 'main' }) }, 400);
  // None of the refused conditional writes landed.
  check.expect(await refreshHead() === head, 'refused conditional writes left main\'s head unchanged');
}

// ---------------------------------------------------------------------------
// Route semantics server.md §1.2 pins, with exact statuses (and messages
// where the text is contractual).
// ---------------------------------------------------------------------------

async function semanticChecks(opOf) {
  const post = (path, body, headers = {}) => ({ method: 'POST', path, headers: { ...ADMIN, ...JSON_CT, ...headers }, body: json(body) });
  const op = (key) => opOf(key);
  const stored = op('POST /graphs/{graph_id}/queries/{name}');
  const storedCond = op('POST /graphs/{graph_id}/queries/{name}/if-graph-commit');

  // Stored queries: the body is optional; mutation + snapshot and an
  // expect_mutation mismatch are 400; only mutations take the header.
  const noBody = await exchange('stored read without a body', 'ok', stored, { method: 'POST', path: '/graphs/g1/queries/people', headers: ADMIN }, 200);
  if (noBody.body) check.expect(noBody.body.query_name === 'people', `stored read without a body runs people (got ${noBody.body.query_name})`);
  await exchange('stored mutation against a snapshot', 'ok', stored, post('/graphs/g1/queries/add_person', { params: { name: 'q1', age: 1 }, snapshot: ctx.head }), 400);
  await exchange('stored mutation with expect_mutation false', 'ok', stored, post('/graphs/g1/queries/add_person', { params: { name: 'q2', age: 1 }, expect_mutation: false }), 400);
  await exchange('stored read with expect_mutation true', 'ok', stored, post('/graphs/g1/queries/people', { expect_mutation: true }), 400);
  await exchange('stored read on the conditional route', 'precondition', storedCond,
    post('/graphs/g1/queries/people/if-graph-commit', {}, { 'omnigraph-if-graph-commit': ctx.head }), 400);

  // /query refuses mutation source; /mutate refuses the header (above).
  await exchange('/query with a mutation', 'ok', op('POST /graphs/{graph_id}/query'),
    post('/graphs/g1/query', { query: ADD_SOURCE, params: { name: 'q3', age: 1 } }), 400);

  // Change feed: exactly one of cursor/start/page_token, contractual prefix.
  for (const query of ['branch=main&start=beginning&cursor=x', 'branch=main']) {
    const r = await exchange(`/changes?${query}`, 'ok', op('GET /graphs/{graph_id}/changes'),
      { method: 'GET', path: `/graphs/g1/changes?${query}`, headers: ADMIN }, 400);
    if (r.body) check.expect(r.body.error.startsWith('change cursor rejected: '), `/changes?${query}: "change cursor rejected: " prefix (got ${r.body.error})`);
  }
  await exchange('commit changes with an unknown query parameter', 'ok', op('GET /graphs/{graph_id}/commits/{commit_id}/changes'),
    { method: 'GET', path: `/graphs/g1/commits/${ctx.head}/changes?bogus=1`, headers: ADMIN }, 400);

  // Load into a missing branch: 404 without `from`, created with it.
  const load = op('POST /graphs/{graph_id}/load');
  const team = (slug) => `{"type":"Team","data":{"slug":"${slug}"}}\n`;
  await exchange('load into a missing branch without from', 'engine_error', load, post('/graphs/g1/load', { branch: 'newb', data: team('n1') }), 404);
  const created = await exchange('load/ndjson into a missing branch with from', 'ok', op('POST /graphs/{graph_id}/load/ndjson'),
    { method: 'POST', path: '/graphs/g1/load/ndjson?branch=newb&from=main', headers: { ...ADMIN, 'content-type': 'application/x-ndjson' }, body: team('n2') }, 200);
  if (created.body) check.expect(created.body.branch_created === true && created.body.branch === 'newb', `load/ndjson created branch newb (got ${json({ branch: created.body.branch, branch_created: created.body.branch_created })})`);

  // Export: closed request object, unknown type, unknown branch.
  const exp = op('POST /graphs/{graph_id}/export');
  await exchange('export with an unknown request field', 'ok', exp, post('/graphs/g1/export', { branch: 'main', type_names: [], bogus: 1 }), 400);
  await exchange('export of an unknown type', 'ok', exp, post('/graphs/g1/export', { branch: 'main', type_names: ['Nope'] }), 400);
  await exchange('export of an unknown branch', 'ok', exp, post('/graphs/g1/export', { branch: 'nobranch' }), 404);

  // Branch delete: unknown → 404; main cannot be deleted (the contract
  // lists no 400 for this operation; server.md §1.5 maps it to 400).
  const del = op('DELETE /graphs/{graph_id}/branches/{branch}');
  await exchange('delete an unknown branch', 'ok', del, { method: 'DELETE', path: '/graphs/g1/branches/nobranch', headers: ADMIN }, 404);
  await exchange('delete main', 'engine_error', del, { method: 'DELETE', path: '/graphs/g1/branches/main', headers: ADMIN }, 400);

  // The token alone decides the actor: X-Actor-Id is ignored.
  const spoof = await exchange('mutate with X-Actor-Id: reader', 'ok', op('POST /graphs/{graph_id}/mutate'),
    post('/graphs/g1/mutate', { query: ADD_SOURCE, params: { name: 'q4', age: 1 }, branch: 'newb' }, { 'x-actor-id': 'reader' }), 200);
  if (spoof.body) check.expect(spoof.body.actor_id === 'admin', `X-Actor-Id ignored: actor_id admin (got ${spoof.body.actor_id})`);

  // /healthz needs no token and ignores a bad one.
  await exchange('healthz with a bad token', 'ok', op('GET /healthz'), { method: 'GET', path: '/healthz', headers: { authorization: 'Bearer nope' } }, 200);

  // Reads of a missing branch or commit: 404 (server.md §1.5; these
  // operations do not list 404 in the contract, hence engine_error).
  await exchange('snapshot of a missing branch', 'engine_error', op('GET /graphs/{graph_id}/snapshot'),
    { method: 'GET', path: '/graphs/g1/snapshot?branch=nobranch', headers: ADMIN }, 404);
  await exchange('commits of a missing branch', 'engine_error', op('GET /graphs/{graph_id}/commits'),
    { method: 'GET', path: '/graphs/g1/commits?branch=nobranch', headers: ADMIN }, 404);
  const queryOp = op('POST /graphs/{graph_id}/query');
  await exchange('query at an unknown snapshot', 'engine_error', queryOp, post('/graphs/g1/query', { query: PEOPLE_SOURCE, snapshot: 'bogus' }), 404);
  await exchange('query with both branch and snapshot', 'ok', queryOp, post('/graphs/g1/query', { query: PEOPLE_SOURCE, snapshot: ctx.head, branch: 'main' }), 400);
  const atSnapshot = await exchange('query at a snapshot', 'ok', queryOp, post('/graphs/g1/query', { query: PEOPLE_SOURCE, snapshot: ctx.head }), 200);
  if (atSnapshot.body) check.expect(atSnapshot.body.target.snapshot === ctx.head && atSnapshot.body.graph_commit_id === ctx.head, `query at a snapshot reports it (got ${json(atSnapshot.body.target)})`);
  await exchange('snapshot with a percent-encoded branch', 'ok', op('GET /graphs/{graph_id}/snapshot'),
    { method: 'GET', path: '/graphs/g1/snapshot?branch=ma%69n', headers: ADMIN }, 200);

  // Media types: parameters and case do not matter; none at all is 415.
  for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
    await exchange(`query with Content-Type ${type}`, 'ok', queryOp,
      { ...post('/graphs/g1/query', { query: PEOPLE_SOURCE }), headers: { ...ADMIN, 'content-type': type } }, 200);
  }
  await exchange('query without a Content-Type', 'wrong_content_type', queryOp,
    { method: 'POST', path: '/graphs/g1/query', headers: ADMIN, body: json({ query: PEOPLE_SOURCE }) }, 415);

  // Keep-alive: an error response leaves the connection usable.
  await keepAliveCheck();

  // 405 names the allowed methods.
  const wrong = await request(BASE, { method: 'PUT', path: '/graphs/g1/snapshot', headers: ADMIN });
  check.expect(wrong.headers.allow === 'GET, HEAD', `405 carries Allow: GET, HEAD (got ${wrong.headers.allow})`);

  // HEAD on a GET route: GET's status and Content-Length, no body; the
  // connection stays usable (a wrong length would desynchronise it).
  // A refused HEAD has no body either: a body would desynchronise the
  // connection for the next response.
  for (const [path, status] of [['/nope', 404], ['/graphs/g1/query', 405]]) {
    const head = await request(BASE, { method: 'HEAD', path, headers: ADMIN });
    check.expect(head.status === status && head.body === '', `HEAD ${path}: ${status} without a body (got ${head.status}, ${head.body.length} bytes)`);
  }
  for (const path of ['/healthz', '/graphs/g1/snapshot', '/graphs/g1/commits']) {
    const get = await request(BASE, { method: 'GET', path, headers: ADMIN });
    const head = await request(BASE, { method: 'HEAD', path, headers: ADMIN });
    check.expect(head.status === get.status && head.status === 200, `HEAD ${path} answers ${get.status} (got ${head.status})`);
    check.expect(head.body === '', `HEAD ${path} has no body (got ${head.body.length} bytes)`);
    check.expect(head.headers['content-length'] === String(Buffer.byteLength(get.body)),
      `HEAD ${path} carries GET's Content-Length ${Buffer.byteLength(get.body)} (got ${head.headers['content-length']})`);
  }
}

// Three requests over one kept-alive connection: 404, 200, 400, 200.
async function keepAliveCheck() {
  const http = await import('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(BASE);
  const sockets = new Set();
  const one = (method, path, body) => new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, agent,
      headers: { ...ADMIN, ...(body ? { ...JSON_CT, 'content-length': Buffer.byteLength(body) } : {}) } }, (res) => {
      sockets.add(res.socket);
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(body);
  });
  try {
    const statuses = [
      await one('GET', '/graphs/g1/nope'),
      await one('GET', '/graphs/g1/schema'),
      await one('POST', '/graphs/g1/query', '{"query": '),
      await one('GET', '/graphs/g1/schema'),
    ];
    check.expect(json(statuses) === '[404,200,400,200]', `keep-alive sequence statuses (got ${json(statuses)})`);
    check.expect(sockets.size === 1, `keep-alive sequence used one connection (used ${sockets.size})`);
  } catch (e) {
    check.expect(false, `keep-alive sequence failed (${e.code || e.message})`);
  } finally {
    agent.destroy();
  }
}

// ---------------------------------------------------------------------------
// Admission (server.md §1.7), against a second server booted with
// OMNIGRAPH_PER_ACTOR_BYTES_MAX=64: every admission-gated write estimates
// more than 64 bytes (query text + params, body length, 256 for branch
// operations), so each gets 429 with Retry-After: 60; reads are not gated.
// Schema apply is left out: cluster serving answers it 409 regardless.
// ---------------------------------------------------------------------------

async function admissionChecks(opOf) {
  const post = (path, body) => ({ method: 'POST', path, headers: { ...ADMIN, ...JSON_CT }, body: json(body) });
  const mutation = { query: ADD_SOURCE, params: { name: 'adm', age: 1 }, branch: 'main' };
  const head = await refreshHead();
  const gated = [
    ['POST /graphs/{graph_id}/mutate', post('/graphs/g1/mutate', mutation)],
    ['POST /graphs/{graph_id}/change', post('/graphs/g1/change', mutation)],
    ['POST /graphs/{graph_id}/mutate/if-graph-commit', { ...post('/graphs/g1/mutate/if-graph-commit', mutation), headers: { ...ADMIN, ...JSON_CT, 'omnigraph-if-graph-commit': head } }],
    ['POST /graphs/{graph_id}/queries/{name}', post('/graphs/g1/queries/add_person', { params: { name: 'adm', age: 1 } })],
    ['POST /graphs/{graph_id}/load', post('/graphs/g1/load', { branch: 'main', data: '{"type":"Team","data":{"slug":"admission-check"}}\n' })],
    ['POST /graphs/{graph_id}/ingest', post('/graphs/g1/ingest', { branch: 'main', data: '{"type":"Team","data":{"slug":"admission-check"}}\n' })],
    ['POST /graphs/{graph_id}/load/ndjson', { method: 'POST', path: '/graphs/g1/load/ndjson?branch=main', headers: { ...ADMIN, 'content-type': 'application/x-ndjson' }, body: '{"type":"Team","data":{"slug":"admission-check-1"}}\n{"type":"Team","data":{"slug":"admission-check-2"}}\n' }],
    ['POST /graphs/{graph_id}/branches', post('/graphs/g1/branches', { name: 'adm', from: 'main' })],
    ['POST /graphs/{graph_id}/branches/merge', post('/graphs/g1/branches/merge', { source: 'main', target: 'main' })],
    ['DELETE /graphs/{graph_id}/branches/{branch}', { method: 'DELETE', path: '/graphs/g1/branches/adm', headers: ADMIN }],
  ];
  for (const [key, req] of gated) {
    const { res, body } = await exchange(`${key} [admission]`, 'ok', opOf(key), req, 429);
    if (!res || res.status !== 429) continue;
    check.expect(res.headers['retry-after'] === '60', `${key} [admission]: Retry-After: 60 (got ${res.headers['retry-after']})`);
    if (body) check.expect(body.code === 'too_many_requests', `${key} [admission]: code too_many_requests (got ${body.code})`);
  }
  await exchange('query under a tiny admission budget', 'ok', opOf('POST /graphs/{graph_id}/query'),
    post('/graphs/g1/query', { query: PEOPLE_SOURCE, branch: 'main' }), 200);
  check.expect(await refreshHead() === head, 'refused writes left main\'s head unchanged');
}

// ---------------------------------------------------------------------------

async function main() {
  const ops = operations(spec);
  const opOf = (key) => ops.find((o) => `${o.method} ${o.template}` === key)?.op;

  // Every operation of the contract has at least one well-formed case.
  for (const { method, template } of ops) {
    const key = `${method} ${template}`;
    check.expect(CASES.some((c) => c.key === key), `contract operation ${key} has a conformance case`);
  }
  for (const c of CASES) check.expect(opOf(c.key) !== undefined, `case ${c.key} is an operation of the contract`);

  await refreshHead();
  if (process.env.OG_PHASE === 'admission') {
    await admissionChecks(opOf);
    check.done();
    return;
  }
  // Variants first: none of them may change anything.
  const headBefore = ctx.head;
  const seen = new Set();
  for (const c of CASES) {
    if (seen.has(c.key)) continue;
    seen.add(c.key);
    for (const v of variants(c)) {
      const { body } = await exchange(`${c.key} [${v.kind}]`, v.kind, opOf(c.key), v.req, v.status);
      if (v.then) v.then(body);
    }
  }
  check.expect(await refreshHead() === headBefore, 'refused variants left main\'s head unchanged');

  // The well-formed sequence.
  for (const c of CASES) {
    if (c.before) await c.before();
    const { res, body } = await exchange(c.key, 'ok', opOf(c.key), c.req(), c.status);
    if (res && res.status === c.status && c.then && body !== undefined) c.then(body, res);
  }

  await edgeCases(opOf);
  await refreshHead();
  await semanticChecks(opOf);

  // The served OpenAPI document is the contract file itself.
  const served = await exchange('GET /openapi.json', 'off_contract', undefined, { method: 'GET', path: '/openapi.json' }, 200);
  if (served.body) check.expect(json(Object.keys(served.body.paths).sort()) === json(Object.keys(spec.paths).sort()), 'served /openapi.json lists the contract paths');
  check.done();
}

main().catch((e) => { console.error(e); process.exit(2); });

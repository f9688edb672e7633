// server.policy_routes: no route of the contract lets an actor without a
// grant through, and only an exact `Bearer <token>` header authenticates.
//
//   OG_BASE_URL=... OG_TOKENS_JSON=... node policy_routes.mjs openapi.json
//
// 1. Every operation of openapi.json (GET/HEAD reads as well as the
//    POST/DELETE writes) is sent, well-formed, by `stranger`: a valid token
//    whose actor is in no group of any bundle. Each must be refused with 403
//    — or, for stored-query invocation, the 404 that an unknown query name
//    gets, byte for byte (server.md §1.2). A new operation without an entry
//    in ROUTES fails the test, so it cannot slip through unchecked.
// 2. `reader` (read only) is refused every non-read action and allowed reads.
// 3. Malformed Authorization headers → 401 with the exact message.
// Nothing refused may change the graph: main's head is compared at the end.
import { request, bearer, operations, loadContract, Checker, describe } from './common.mjs';

const BASE = process.env.OG_BASE_URL;
const TOKENS = JSON.parse(process.env.OG_TOKENS_JSON);
const { spec, validate } = loadContract(process.argv[2]);
const check = new Checker('server.policy_routes');
const json = (v) => JSON.stringify(v);
const JSON_CT = { 'content-type': 'application/json' };
const ADD = 'query add_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }';
const PEOPLE = 'query people() { match { $p: Person } return { $p.name } }';

// One well-formed request per operation, given auth headers and the head
// commit id, and the Cedar action the route checks (server.md §1.2).
// action `none` = no policy check (health); the stranger is not refused there.
const ROUTES = {
  'GET /healthz': { action: 'none', req: () => ({ method: 'GET', path: '/healthz' }) },
  'GET /graphs': { action: 'graph_list', req: (h) => ({ method: 'GET', path: '/graphs', headers: h }) },
  'GET /graphs/{graph_id}/snapshot': { action: 'read', req: (h) => ({ method: 'GET', path: '/graphs/g1/snapshot?branch=main', headers: h }) },
  'GET /graphs/{graph_id}/blob': { action: 'read', req: (h) => ({ method: 'GET', path: '/graphs/g1/blob?entity=node&type=Person&id=alice&property=name&branch=main', headers: h }) },
  'HEAD /graphs/{graph_id}/blob': { action: 'read', req: (h) => ({ method: 'HEAD', path: '/graphs/g1/blob?entity=node&type=Person&id=alice&property=name&branch=main', headers: h }) },
  'GET /graphs/{graph_id}/schema': { action: 'read', req: (h) => ({ method: 'GET', path: '/graphs/g1/schema', headers: h }) },
  'GET /graphs/{graph_id}/queries': { action: 'read', req: (h) => ({ method: 'GET', path: '/graphs/g1/queries', headers: h }) },
  'GET /graphs/{graph_id}/branches': { action: 'read', req: (h) => ({ method: 'GET', path: '/graphs/g1/branches', headers: h }) },
  'GET /graphs/{graph_id}/commits': { action: 'read', req: (h) => ({ method: 'GET', path: '/graphs/g1/commits?branch=main', headers: h }) },
  'GET /graphs/{graph_id}/commits/{commit_id}': { action: 'read', req: (h, head) => ({ method: 'GET', path: `/graphs/g1/commits/${head}`, headers: h }) },
  'GET /graphs/{graph_id}/commits/{commit_id}/changes': { action: 'read', req: (h, head) => ({ method: 'GET', path: `/graphs/g1/commits/${head}/changes`, headers: h }) },
  'GET /graphs/{graph_id}/changes': { action: 'read', req: (h) => ({ method: 'GET', path: '/graphs/g1/changes?branch=main&start=beginning', headers: h }) },
  'POST /graphs/{graph_id}/query': { action: 'read', req: (h) => post(h, '/graphs/g1/query', { query: PEOPLE, branch: 'main' }) },
  'POST /graphs/{graph_id}/read': { action: 'read', req: (h) => post(h, '/graphs/g1/read', { query_source: PEOPLE, branch: 'main' }) },
  'POST /graphs/{graph_id}/export': { action: 'export', req: (h) => post(h, '/graphs/g1/export', { branch: 'main', type_names: [] }) },
  'POST /graphs/{graph_id}/changes/baseline': { action: 'export', req: (h) => post(h, '/graphs/g1/changes/baseline', { branch: 'main' }) },
  'POST /graphs/{graph_id}/mutate': { action: 'change', req: (h) => post(h, '/graphs/g1/mutate', { query: ADD, params: { name: 'x1', age: 1 }, branch: 'main' }) },
  'POST /graphs/{graph_id}/change': { action: 'change', req: (h) => post(h, '/graphs/g1/change', { query: ADD, params: { name: 'x2', age: 1 }, branch: 'main' }) },
  'POST /graphs/{graph_id}/mutate/if-graph-commit': { action: 'change',
    req: (h, head) => post({ ...h, 'omnigraph-if-graph-commit': head }, '/graphs/g1/mutate/if-graph-commit', { query: ADD, params: { name: 'x3', age: 1 }, branch: 'main' }) },
  'POST /graphs/{graph_id}/queries/{name}': { action: 'invoke_query', req: (h) => post(h, '/graphs/g1/queries/add_person', { params: { name: 'x4', age: 1 }, branch: 'main' }) },
  'POST /graphs/{graph_id}/queries/{name}/if-graph-commit': { action: 'invoke_query',
    req: (h, head) => post({ ...h, 'omnigraph-if-graph-commit': head }, '/graphs/g1/queries/add_person/if-graph-commit', { params: { name: 'x5', age: 1 }, branch: 'main' }) },
  'POST /graphs/{graph_id}/load': { action: 'change', req: (h) => post(h, '/graphs/g1/load', { branch: 'main', mode: 'merge', data: '{"type":"Team","data":{"slug":"x6"}}\n' }) },
  'POST /graphs/{graph_id}/ingest': { action: 'change', req: (h) => post(h, '/graphs/g1/ingest', { branch: 'main', mode: 'merge', data: '{"type":"Team","data":{"slug":"x7"}}\n' }) },
  'POST /graphs/{graph_id}/load/ndjson': { action: 'change',
    req: (h) => ({ method: 'POST', path: '/graphs/g1/load/ndjson?branch=main&mode=merge', headers: { ...h, 'content-type': 'application/x-ndjson' }, body: '{"type":"Team","data":{"slug":"x8"}}\n' }) },
  'POST /graphs/{graph_id}/branches': { action: 'branch_create', req: (h) => post(h, '/graphs/g1/branches', { name: 'x9', from: 'main' }) },
  'POST /graphs/{graph_id}/branches/merge': { action: 'branch_merge', req: (h) => post(h, '/graphs/g1/branches/merge', { source: 'side', target: 'main' }) },
  'DELETE /graphs/{graph_id}/branches/{branch}': { action: 'branch_delete', req: (h) => ({ method: 'DELETE', path: '/graphs/g1/branches/side', headers: h }) },
  'POST /graphs/{graph_id}/schema/apply': { action: 'schema_apply', req: (h) => post(h, '/graphs/g1/schema/apply', { schema_source: 'node A { k: String @key }\n' }) },
};

function post(headers, path, body) {
  return { method: 'POST', path, headers: { ...headers, ...JSON_CT }, body: json(body) };
}

async function send(req) {
  try {
    return await request(BASE, req);
  } catch (e) {
    return { status: -1, headers: {}, body: `request failed: ${e.code || e.message}` };
  }
}

async function head() {
  const res = await send({ method: 'GET', path: '/graphs/g1/commits?branch=main', headers: bearer(TOKENS.admin) });
  return JSON.parse(res.body).commits[0].graph_commit_id;
}

async function branchNames() {
  const res = await send({ method: 'GET', path: '/graphs/g1/branches', headers: bearer(TOKENS.admin) });
  return JSON.parse(res.body).branches.map((b) => b.name ?? b).sort();
}

// A refusal: the exact status, and an ErrorOutput body with `code`.
function expectRefusal(label, req, res, status, code) {
  const detail = describe(req, res);
  check.expect(res.status === status, `${label}: status ${res.status}, expected ${status}`, detail);
  if (req.method === 'HEAD') {
    check.expect(res.body === '', `${label}: HEAD refusal has no body`, detail);
    return undefined;
  }
  let body;
  try { body = JSON.parse(res.body); } catch { body = undefined; }
  if (!check.expect(body !== undefined, `${label}: refusal body is JSON`, detail)) return undefined;
  const errors = validate({ $ref: '#/components/schemas/ErrorOutput' }, body);
  check.expect(!errors, `${label}: refusal body is ErrorOutput (${errors})`, detail);
  check.expect(body.code === code, `${label}: code ${body.code}, expected ${code}`, detail);
  return body;
}

// 1 + 2: stranger and reader on every operation.
async function grants(ops, headId) {
  const stranger = bearer(TOKENS.stranger);
  const reader = bearer(TOKENS.reader);
  for (const { method, template } of ops) {
    const key = `${method} ${template}`;
    const route = ROUTES[key];
    if (!check.expect(route !== undefined, `operation ${key} has a policy expectation in ROUTES`)) continue;
    if (route.action === 'none') continue;
    const req = route.req(stranger, headId);
    const res = await send(req);
    if (route.action === 'invoke_query') {
      // Denial ≡ unknown name: the same 404 and the same body as a query
      // that does not exist (asked by the admin, who may invoke).
      const unknownReq = route.req(bearer(TOKENS.admin), headId);
      unknownReq.path = unknownReq.path.replace('/queries/add_person', '/queries/no_such_query');
      const unknown = await send(unknownReq);
      const body = expectRefusal(`stranger ${key}`, req, res, 404, 'not_found');
      expectRefusal(`admin ${key} (unknown name)`, unknownReq, unknown, 404, 'not_found');
      check.expect(res.body === unknown.body,
        `stranger ${key}: body identical to the unknown-name 404 (${res.body} vs ${unknown.body})`);
      if (body) check.expect(body.error === 'stored query not found', `stranger ${key}: message (got ${body.error})`);
    } else {
      expectRefusal(`stranger ${key}`, req, res, 403, 'forbidden');
    }
    // The reader holds `read` on every branch and nothing else.
    const rreq = route.req(reader, headId);
    const rres = await send(rreq);
    if (route.action === 'read') {
      // Allowed by policy: anything but 401/403 (the blob route has no Blob
      // to serve in this schema).
      check.expect(rres.status !== 403 && rres.status !== 401, `reader ${key}: read is allowed (got ${rres.status})`, describe(rreq, rres));
    } else if (route.action === 'invoke_query') {
      expectRefusal(`reader ${key}`, rreq, rres, 404, 'not_found');
    } else {
      expectRefusal(`reader ${key}`, rreq, rres, 403, 'forbidden');
    }
  }
}

// 4: /load/ndjson decides auth and policy before reading the body, and
// applies its 32 MiB limit after them (server.md §1.2, §1.3): a declared
// length with no body sent must still get 401/403 — promptly, and not 413.
async function ndjsonAuthBeforeBody() {
  const MiB = 1024 * 1024;
  const cases = [
    ['stranger, 2 MiB declared', bearer(TOKENS.stranger), 2 * MiB, 403, 'forbidden'],
    ['stranger, 32 MiB + 1 declared', bearer(TOKENS.stranger), 32 * MiB + 1, 403, 'forbidden'],
    ['reader, 32 MiB + 1 declared', bearer(TOKENS.reader), 32 * MiB + 1, 403, 'forbidden'],
    ['no token, 32 MiB + 1 declared', {}, 32 * MiB + 1, 401, 'unauthorized'],
  ];
  for (const [name, auth, size, status, code] of cases) {
    const req = { method: 'POST', path: '/graphs/g1/load/ndjson?branch=main', headers: { ...auth, 'content-type': 'application/x-ndjson' },
      body: 'x'.repeat(size), declareOnly: true, timeoutMs: 5000 };
    const res = await send(req);
    expectRefusal(`load/ndjson ${name}, no body sent`, { ...req, body: `(${size} bytes declared)` }, res, status, code);
  }
}

// 3: Authorization headers that must not authenticate, each on a read, the
// server-scoped list and a write, with the exact 401 message (server.md
// §1.4: an exact, case-sensitive "Bearer " prefix; missing header or other
// scheme → "missing bearer token"; no match → "invalid bearer token").
//
// Whitespace at the ends of a header value is not part of the value
// (RFC 9110 §5.5), so the server never sees it: "Bearer tok " IS
// "Bearer tok" (pinned below as accepted), and "Bearer " is "Bearer", which
// has no "Bearer " prefix (missing, not invalid).
async function tokenEdgeCases() {
  const tok = TOKENS.admin;
  const cases = [
    ['no header', undefined, 'missing bearer token'],
    ['lower-case scheme', `bearer ${tok}`, 'missing bearer token'],
    ['upper-case scheme', `BEARER ${tok}`, 'missing bearer token'],
    ['two spaces', `Bearer  ${tok}`, 'invalid bearer token'],
    ['tab separator', `Bearer\t${tok}`, 'missing bearer token'],
    ['Basic scheme', `Basic ${Buffer.from(`admin:${tok}`).toString('base64')}`, 'missing bearer token'],
    ['scheme only', 'Bearer', 'missing bearer token'],
    ['scheme and a space', 'Bearer ', 'missing bearer token'],
    ['unknown token', 'Bearer tok-nobody', 'invalid bearer token'],
    ['token in other case', `Bearer ${tok.toUpperCase()}`, 'invalid bearer token'],
    ['token prefix', `Bearer ${tok.slice(0, -1)}`, 'invalid bearer token'],
    ['token with a suffix', `Bearer ${tok}x`, 'invalid bearer token'],
    ['two tokens in one header', `Bearer ${tok}, Bearer ${tok}`, 'invalid bearer token'],
    ['two Authorization headers', [`Bearer ${TOKENS.reader}`, `Bearer ${tok}`], 'more than one Authorization header'],
    ['two identical Authorization headers', [`Bearer ${tok}`, `Bearer ${tok}`], 'more than one Authorization header'],
  ];
  const targets = [
    (h) => ({ method: 'GET', path: '/graphs/g1/snapshot?branch=main', headers: h }),
    (h) => ({ method: 'GET', path: '/graphs', headers: h }),
    (h) => post(h, '/graphs/g1/mutate', { query: ADD, params: { name: 'y1', age: 1 }, branch: 'main' }),
  ];
  for (const target of targets) {
    for (const [name, value, message] of cases) {
      const req = target(value === undefined ? {} : { authorization: value });
      const res = await send(req);
      const body = expectRefusal(`Authorization ${name} (${req.method} ${req.path})`, req, res, 401, 'unauthorized');
      if (body) {
        check.expect(body.error === message, `Authorization ${name}: message "${body.error}", expected "${message}"`);
      }
    }
  }
  // Positive controls (reads only, so nothing changes): the exact form, and
  // the same with trailing whitespace, which HTTP strips before the server.
  for (const value of [`Bearer ${tok}`, `Bearer ${tok} `, `Bearer ${tok}\t`]) {
    const res = await send({ method: 'GET', path: '/graphs/g1/snapshot?branch=main', headers: { authorization: value } });
    check.expect(res.status === 200, `Authorization ${json(value)} authenticates (got ${res.status})`, res.body);
  }
}

async function main() {
  const ops = operations(spec);
  for (const key of Object.keys(ROUTES)) {
    check.expect(ops.some((o) => `${o.method} ${o.template}` === key), `ROUTES entry ${key} is an operation of the contract`);
  }
  // A branch for the merge and delete requests to name, made by the admin.
  const side = await send(post(bearer(TOKENS.admin), '/graphs/g1/branches', { name: 'side', from: 'main' }));
  check.expect(side.status === 200, `admin creates branch side (got ${side.status})`, side.body);
  const before = await head();
  const branchesBefore = await branchNames();
  await grants(ops, before);
  await tokenEdgeCases();
  await ndjsonAuthBeforeBody();
  check.expect(await head() === before, 'no refused request moved main\'s head');
  check.expect(json(await branchNames()) === json(branchesBefore), `no refused request created or deleted a branch (${json(branchesBefore)})`);
  check.done();
}

main().catch((e) => { console.error(e); process.exit(2); });

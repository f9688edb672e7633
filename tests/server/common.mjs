// Helpers shared by the server tests: a raw HTTP client (node:http, so the
// test controls every header byte and path segment), the OpenAPI contract
// with ajv validators for its response schemas, and a failure collector.
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats');

// ---------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------

// Sends one request. `headers` values may be arrays (one header line per
// element). `body` is a string or Buffer, sent with a Content-Length (as
// curl and most clients do) unless `chunked` is set. With `declareOnly`
// the Content-Length of `body` is declared but no body byte is sent: the
// server must answer from the header alone (413 for an oversized length).
// Resolves {status, headers, body} with the body as a UTF-8 string.
export function request(baseUrl, { method, path, headers = {}, body, chunked = false, declareOnly = false, timeoutMs = 30000 }) {
  const url = new URL(baseUrl);
  const allHeaders = { ...headers };
  if (body !== undefined && !chunked) allHeaders['content-length'] = Buffer.byteLength(body);
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (e) => { if (!settled) { settled = true; reject(e); } };
    const req = http.request({
      host: url.hostname, port: url.port, method, path, headers: allHeaders,
      agent: false,   // a fresh connection per request: no keep-alive coupling
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', (e) => finish(e));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode, headers: res.headers,
                  body: Buffer.concat(chunks).toString('utf8') });
        if (declareOnly) req.destroy();
      });
    });
    req.setTimeout(timeoutMs, () => { req.destroy(new Error('timeout')); });
    // A reset while uploading may race the response: give it a moment.
    req.on('error', (e) => setTimeout(() => finish(e), 2000));
    if (declareOnly) {
      req.flushHeaders();
      return;
    }
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// Authorization header for an actor's token.
export const bearer = (token) => ({ authorization: `Bearer ${token}` });

// ---------------------------------------------------------------------------
// The OpenAPI contract
// ---------------------------------------------------------------------------

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

// Every operation of the document: [{method: 'POST', template, op}].
export function operations(spec) {
  const out = [];
  for (const [template, item] of Object.entries(spec.paths)) {
    for (const method of HTTP_METHODS) {
      if (item[method]) out.push({ method: method.toUpperCase(), template, op: item[method] });
    }
  }
  return out;
}

// Rewrites local refs "#/components/..." to "oapi#/components/..." so inline
// schemas can be compiled on their own against the registered document.
function rebaseRefs(node) {
  if (Array.isArray(node)) return node.map(rebaseRefs);
  if (node && typeof node === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = (k === '$ref' && typeof v === 'string' && v.startsWith('#/')) ? `oapi${v}` : rebaseRefs(v);
    }
    return out;
  }
  return node;
}

// Loads the contract and returns {spec, validate(schema, value) → errors|null}.
export function loadContract(path) {
  const spec = JSON.parse(fs.readFileSync(path, 'utf8'));
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; OpenAPI-only keywords
  // (discriminator, example, ...) are annotations, hence strict: false.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n) => Number.isInteger(n) });
  ajv.addFormat('binary', true);
  ajv.addSchema({ $id: 'oapi', components: rebaseRefs(spec.components) });
  const cache = new Map();
  const validate = (schema, value) => {
    const key = JSON.stringify(schema);
    if (!cache.has(key)) cache.set(key, ajv.compile(rebaseRefs(schema)));
    const fn = cache.get(key);
    return fn(value) ? null : ajv.errorsText(fn.errors, { separator: '; ' });
  };
  return { spec, validate };
}

export const errorOutputSchema = { $ref: '#/components/schemas/ErrorOutput' };

// ---------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------

// Collects failures so one run reports all of them; `done()` exits non-zero
// if any were recorded.
export class Checker {
  constructor(name) { this.name = name; this.failures = []; this.checks = 0; }

  // Records a failure unless `ok`; `what` says what was checked, `detail`
  // carries the request and response for the report.
  expect(ok, what, detail = '') {
    this.checks++;
    if (!ok) {
      this.failures.push(`${what}${detail ? `\n      ${detail}` : ''}`);
      console.log(`  FAIL ${what}`);
    }
    return ok;
  }

  done() {
    console.log(`${this.name}: ${this.checks} checks, ${this.failures.length} failed`);
    for (const f of this.failures) console.log(`- ${f}`);
    process.exit(this.failures.length ? 1 : 0);
  }
}

// A short printable form of a request/response pair for failure reports.
export function describe(req, res) {
  const body = req.body === undefined ? '' : String(req.body).slice(0, 200);
  const resBody = res ? res.body.slice(0, 400) : '(no response)';
  return `${req.method} ${req.path} ${JSON.stringify(req.headers || {})} ${body} → ` +
         `${res ? res.status : '-'} ${res ? (res.headers['content-type'] || '') : ''} ${resBody}`;
}


// server.cedar_differential: our native policy evaluator against Cedar.
//
//   node cedar_differential.mjs OMNIGRAPH_BINARY
//   (env OG_CEDAR_SEED, OG_CEDAR_BUNDLES, OG_CEDAR_REQUESTS to vary the run)
//
// Generates random, valid policy bundles (server.md §2.2) and random
// requests, asks our evaluator through `omnigraph policy test --json` (and,
// once per bundle, `policy explain --json`), compiles the same bundle to
// Cedar exactly as server.md §2.3 describes (one permit per rule × action,
// id "<rule>:<action>", principal in the group, resource the graph or
// Server::"root", a `when` only for a scope), and evaluates it with the
// official Cedar engine (@cedar-policy/cedar-wasm 4.13.0). The decision and
// the matched rule (the smallest satisfied rule id, §2.4) must agree.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Checker } from './common.mjs';

const require = createRequire(import.meta.url);
const cedar = require('@cedar-policy/cedar-wasm/nodejs');

const OMNIGRAPH = process.argv[2];
const SEED = Number(process.env.OG_CEDAR_SEED ?? 20261203);
const BUNDLES = Number(process.env.OG_CEDAR_BUNDLES ?? 30);
const REQUESTS_PER_BUNDLE = Number(process.env.OG_CEDAR_REQUESTS ?? 10);
const check = new Checker('server.cedar_differential');

// ---------------------------------------------------------------------------
// The policy model (server.md §2.1)
// ---------------------------------------------------------------------------

const BRANCH_SCOPED = ['read', 'export', 'change'];
const TARGET_SCOPED = ['branch_create', 'schema_apply', 'branch_delete', 'branch_merge'];
const UNSCOPED = ['admin', 'invoke_query'];
const GRAPH_ACTIONS = [...BRANCH_SCOPED, ...TARGET_SCOPED, ...UNSCOPED];
const SCOPES = ['any', 'protected', 'unprotected'];
const GRAPH_ID = 'g1';

// ---------------------------------------------------------------------------
// Deterministic randomness (mulberry32)
// ---------------------------------------------------------------------------

function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (list) => list[int(list.length)];
  const subset = (list, min = 0) => {
    let out = list.filter(() => next() < 0.5);
    while (out.length < min) out = [...new Set([...out, pick(list)])];
    return list.filter((x) => out.includes(x));  // keep list order, no duplicates
  };
  return { next, int, pick, subset };
}

// ---------------------------------------------------------------------------
// Random bundles and requests
// ---------------------------------------------------------------------------

const ACTORS = ['alice', 'bob', 'carol', 'dave', 'erin'];
// Near-misses of protected names ('Main', ' main', 'main ') must not be
// protected: names are compared exactly.
const BRANCHES = ['main', 'release', 'dev', 'feature-x', 'Main', 'prod', ' main', 'main '];

// A graph bundle: 1-4 groups, a protected list, 1-6 rules. Rule ids are
// drawn so that several rules often share an action, which makes the
// smallest-id rule of the allow non-trivial.
function graphBundle(r) {
  const groups = {};
  const groupCount = 1 + r.int(4);
  for (let i = 0; i < groupCount; i++) groups[`grp${i}`] = r.subset(ACTORS, 1);
  const protectedBranches = r.subset(['main', 'release', 'prod', 'Main']);
  const rules = [];
  const ruleCount = 1 + r.int(6);
  const ids = r.subset(['r-a', 'r-b', 'r-c', 'r0', 'r1', 'r9', 'z', 'a-z', 'A', 'rule_7', 'rule-10', 'rule-2'], ruleCount)
    .sort(() => r.next() - 0.5).slice(0, ruleCount);
  for (const id of ids) {
    const group = r.pick(Object.keys(groups));
    const kind = r.pick(['none', 'branch', 'target', 'branch', 'target']);
    const rule = { id, group };
    if (kind === 'branch') {
      rule.actions = r.subset(BRANCH_SCOPED, 1);
      rule.branch_scope = r.pick(SCOPES);
    } else if (kind === 'target') {
      rule.actions = r.subset(TARGET_SCOPED, 1);
      rule.target_branch_scope = r.pick(SCOPES);
    } else {
      rule.actions = r.subset(GRAPH_ACTIONS, 1);
    }
    rules.push(rule);
  }
  return { kind: 'graph', groups, protected_branches: protectedBranches, rules };
}

// A server bundle: graph_list rules only, never scoped (§2.2).
function serverBundle(r) {
  const groups = { ops: r.subset(ACTORS, 1), auditors: r.subset(ACTORS, 1) };
  const rules = r.subset(['list-ops', 'list-auditors', 'a-list'], 1)
    .map((id) => ({ id, group: r.pick(Object.keys(groups)), actions: ['graph_list'] }));
  return { kind: 'server', groups, protected_branches: [], rules };
}

// A request: any actor (including one in no group), any action, a branch
// and target branch that may be absent.
// Half the requests aim at a rule (its group's member, one of its actions),
// so allows are common enough to compare matched rules.
function randomRequest(r, bundle) {
  let req;
  if (r.next() < 0.5) {
    const rule = r.pick(bundle.rules);
    req = { actor: r.pick(bundle.groups[rule.group]), action: r.pick(rule.actions) };
  } else {
    const action = bundle.kind === 'server' ? r.pick(['graph_list', 'graph_list', 'read']) : r.pick([...GRAPH_ACTIONS, 'graph_list']);
    req = { actor: r.pick([...ACTORS, 'mallory']), action };
  }
  if (r.next() < 0.75) req.branch = r.pick(BRANCHES);
  if (r.next() < 0.6) req.target_branch = r.pick(BRANCHES);
  return req;
}

// ---------------------------------------------------------------------------
// YAML output (block style, every scalar double-quoted JSON-style)
// ---------------------------------------------------------------------------

const q = (s) => JSON.stringify(s);

function bundleYaml(bundle) {
  const lines = ['version: 1', 'groups:'];
  for (const [name, members] of Object.entries(bundle.groups)) lines.push(`  ${q(name)}: [${members.map(q).join(', ')}]`);
  if (bundle.protected_branches.length) lines.push(`protected_branches: [${bundle.protected_branches.map(q).join(', ')}]`);
  lines.push('rules:');
  for (const rule of bundle.rules) {
    lines.push(`  - id: ${q(rule.id)}`, '    allow:', `      actors: { group: ${q(rule.group)} }`,
      `      actions: [${rule.actions.map(q).join(', ')}]`);
    if (rule.branch_scope) lines.push(`      branch_scope: ${q(rule.branch_scope)}`);
    if (rule.target_branch_scope) lines.push(`      target_branch_scope: ${q(rule.target_branch_scope)}`);
  }
  return lines.join('\n') + '\n';
}

function testsYaml(requests) {
  const lines = ['version: 1', 'cases:'];
  requests.forEach((req, i) => {
    lines.push(`  - id: ${q(`c${i}`)}`, `    actor: ${q(req.actor)}`, `    action: ${q(req.action)}`);
    if (req.branch !== undefined) lines.push(`    branch: ${q(req.branch)}`);
    if (req.target_branch !== undefined) lines.push(`    target_branch: ${q(req.target_branch)}`);
    lines.push('    expect: allow');  // the expectation is ignored; we read the decision
  });
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------
// Cedar compilation (server.md §2.3) and evaluation
// ---------------------------------------------------------------------------

const ACTION_DECLS = [...GRAPH_ACTIONS.map((a) => `action "${a}" appliesTo { principal: Actor, resource: Graph, context: RequestContext };`),
  'action "graph_list" appliesTo { principal: Actor, resource: Server, context: RequestContext };'];
const CEDAR_SCHEMA = `namespace Omnigraph {
  type RequestContext = { has_branch: Bool, branch: String, has_target_branch: Bool, target_branch: String,
                          branch_is_protected: Bool, target_branch_is_protected: Bool };
  entity Group;
  entity Actor in [Group];
  entity Graph;
  entity Server;
  ${ACTION_DECLS.join('\n  ')}
}`;

const uid = (type, id) => ({ type: `Omnigraph::${type}`, id });
const lit = (type, id) => `Omnigraph::${type}::${JSON.stringify(id)}`;

// The `when` condition of a scoped rule, or undefined.
function condition(rule) {
  const [scope, prefix] = rule.branch_scope ? [rule.branch_scope, ''] : rule.target_branch_scope ? [rule.target_branch_scope, 'target_'] : [];
  if (!scope) return undefined;
  if (scope === 'any') return 'true';
  if (scope === 'protected') return `context.has_${prefix}branch && context.${prefix}branch_is_protected`;
  return `context.has_${prefix}branch && context.${prefix}branch_is_protected == false`;
}

// {policyId: text} — one permit per rule × action.
function cedarPolicies(bundle) {
  const out = {};
  for (const rule of bundle.rules) {
    for (const action of rule.actions) {
      const resource = action === 'graph_list' ? lit('Server', 'root') : lit('Graph', GRAPH_ID);
      const when = condition(rule);
      out[`${rule.id}:${action}`] =
        `permit (principal in ${lit('Group', rule.group)}, action == ${lit('Action', action)}, resource == ${resource})` +
        (when ? `\nwhen { ${when} };` : ';');
    }
  }
  return out;
}

// Entities: every group, every member actor with its groups as parents, the
// graph, and Server::"root" when a rule uses graph_list.
function cedarEntities(bundle) {
  const entities = Object.keys(bundle.groups).map((g) => ({ uid: uid('Group', g), attrs: {}, parents: [] }));
  const parents = new Map();
  for (const [g, members] of Object.entries(bundle.groups)) {
    for (const m of members) parents.set(m, [...(parents.get(m) || []), uid('Group', g)]);
  }
  for (const [actor, groups] of parents) entities.push({ uid: uid('Actor', actor), attrs: {}, parents: groups });
  entities.push({ uid: uid('Graph', GRAPH_ID), attrs: {}, parents: [] });
  if (bundle.rules.some((r) => r.actions.includes('graph_list'))) entities.push({ uid: uid('Server', 'root'), attrs: {}, parents: [] });
  return entities;
}

// Cedar's answer: {decision, matched_rule_id}.
function askCedar(bundle, policies, entities, req) {
  const prot = (b) => b !== undefined && bundle.protected_branches.includes(b);
  const context = {
    has_branch: req.branch !== undefined, branch: req.branch ?? '',
    has_target_branch: req.target_branch !== undefined, target_branch: req.target_branch ?? '',
    branch_is_protected: prot(req.branch), target_branch_is_protected: prot(req.target_branch),
  };
  const answer = cedar.isAuthorized({
    principal: uid('Actor', req.actor),
    action: uid('Action', req.action),
    resource: req.action === 'graph_list' ? uid('Server', 'root') : uid('Graph', GRAPH_ID),
    context, schema: CEDAR_SCHEMA, validateRequest: true, policies: { staticPolicies: policies }, entities,
  });
  if (answer.type !== 'success') throw new Error(`cedar failed: ${JSON.stringify(answer.errors)}`);
  const { decision, diagnostics } = answer.response;
  if (diagnostics.errors.length) throw new Error(`cedar evaluation errors: ${JSON.stringify(diagnostics.errors)}`);
  const rules = diagnostics.reason.map((id) => id.slice(0, id.lastIndexOf(':'))).sort();
  return { decision, matched_rule_id: decision === 'allow' ? rules[0] : null };
}

// The message server.md §2.4 prescribes for a decision.
function expectedMessage(bundle, req, decision) {
  const known = Object.values(bundle.groups).some((members) => members.includes(req.actor));
  if (decision === 'allow') return `policy allowed action '${req.action}' for actor '${req.actor}'`;
  if (!known) return `policy denied action '${req.action}' for unknown actor '${req.actor}'`;
  return `policy denied action '${req.action}'` +
    (req.branch !== undefined ? ` on branch '${req.branch}'` : '') +
    (req.target_branch !== undefined ? ` targeting branch '${req.target_branch}'` : '') +
    ` for actor '${req.actor}'`;
}

// The generated policies must validate against the schema (§2.3).
function validateCedar(policies, label) {
  const result = cedar.validate({ schema: CEDAR_SCHEMA, policies: { staticPolicies: policies }, validationSettings: { mode: 'strict' } });
  const ok = result.type === 'success' && result.validationErrors.length === 0;
  check.expect(ok, `${label}: generated Cedar validates in strict mode`, JSON.stringify(result).slice(0, 600));
}

// ---------------------------------------------------------------------------
// Our side
// ---------------------------------------------------------------------------

// `policy test --json` over all requests: [{decision, matched_rule_id}].
function askOurs(bundleFile, testsFile) {
  const run = spawnSync(OMNIGRAPH, ['policy', 'test', bundleFile, '--tests', testsFile, '--json'], { encoding: 'utf8' });
  if (run.status !== 0 && run.status !== 1) throw new Error(`policy test exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout).results.map((r) => ({ decision: r.decision, matched_rule_id: r.matched_rule_id ?? null, message: r.message }));
}

function explainOurs(bundleFile, req) {
  const args = ['policy', 'explain', bundleFile, '--actor', req.actor, '--action', req.action, '--json'];
  if (req.branch !== undefined) args.push('--branch', req.branch);
  if (req.target_branch !== undefined) args.push('--target-branch', req.target_branch);
  const out = JSON.parse(execFileSync(OMNIGRAPH, args, { encoding: 'utf8' }));
  return { decision: out.decision, matched_rule_id: out.matched_rule_id ?? null };
}

// ---------------------------------------------------------------------------

function main() {
  const r = rng(SEED);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'og-cedar-'));
  console.log(`seed ${SEED}: ${BUNDLES} bundles × ${REQUESTS_PER_BUNDLE} requests (cedar ${cedar.getCedarVersion()})`);
  const tally = { allow: 0, deny: 0 };
  try {
    for (let b = 0; b < BUNDLES; b++) {
      const bundle = b % 6 === 5 ? serverBundle(r) : graphBundle(r);
      const requests = Array.from({ length: REQUESTS_PER_BUNDLE }, () => randomRequest(r, bundle));
      const bundleFile = path.join(work, `bundle${b}.yaml`);
      const testsFile = path.join(work, `tests${b}.yaml`);
      fs.writeFileSync(bundleFile, bundleYaml(bundle));
      fs.writeFileSync(testsFile, testsYaml(requests));
      const label = `bundle ${b}`;
      const valid = spawnSync(OMNIGRAPH, ['policy', 'validate', bundleFile], { encoding: 'utf8' });
      if (!check.expect(valid.status === 0, `${label}: policy validate accepts it`, `${valid.stderr}\n${bundleYaml(bundle)}`)) continue;
      const policies = cedarPolicies(bundle);
      const entities = cedarEntities(bundle);
      validateCedar(policies, label);
      const ours = askOurs(bundleFile, testsFile);
      check.expect(ours.length === requests.length, `${label}: policy test answered every case`);
      requests.forEach((req, i) => {
        const theirs = askCedar(bundle, policies, entities, req);
        tally[theirs.decision]++;
        const { message, ...decided } = ours[i];
        const wanted = expectedMessage(bundle, req, theirs.decision);
        check.expect(message === wanted, `${label} request ${i} ${JSON.stringify(req)}: message "${message}", expected "${wanted}"`);
        check.expect(JSON.stringify(decided) === JSON.stringify(theirs),
          `${label} request ${i} ${JSON.stringify(req)}: ours ${JSON.stringify(decided)}, cedar ${JSON.stringify(theirs)}`,
          `bundle:\n${bundleYaml(bundle)}cedar:\n${Object.entries(policies).map(([k, v]) => `@id("${k}") ${v}`).join('\n')}`);
      });
      // explain and test are the same evaluator: spot-check one request.
      const explained = explainOurs(bundleFile, requests[0]);
      const { message: _m, ...first } = ours[0];
      check.expect(JSON.stringify(explained) === JSON.stringify(first),
        `${label}: policy explain agrees with policy test on request 0 (${JSON.stringify(explained)} vs ${JSON.stringify(first)})`);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(`cedar decisions: ${tally.allow} allow, ${tally.deny} deny`);
  // The run must exercise both outcomes, or it proves little.
  check.expect(tally.allow >= 30 && tally.deny >= 30, `both decisions well represented (${tally.allow} allow, ${tally.deny} deny)`);
  check.done();
}

main();

#!/usr/bin/env python3
"""Drives the omnigraph-server tests (registered in tests/CMakeLists.txt).

    run_server_test.py MODE OMNIGRAPH OMNIGRAPH_SERVER OPENAPI_JSON

MODE is one of
  conformance       every path+method of OPENAPI_JSON against a live server
                    (tests/server/conformance.mjs), then SIGTERM → exit 0
  policy_routes     every mutating route refuses an actor with no grant,
                    and malformed Authorization headers get 401
                    (tests/server/policy_routes.mjs)
  cedar             our policy decisions against Cedar's (no server;
                    tests/server/cedar_differential.mjs)

For the server modes this script builds a throwaway cluster storage root
(graph g1, two stored queries, a graph policy bundle and a cluster bundle),
boots the server on port 0 with bearer tokens, runs the Node script against
it, and stops the server. Exit status 0 = pass.
"""
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# The cluster fixture: one graph with a node type, an edge type, no Blob.
# ---------------------------------------------------------------------------

SCHEMA = """node Person {
    name: String @key
    age: I32?
}

node Team {
    slug: String @key
}

edge MemberOf: Person -> Team
"""

DATA = "\n".join([
    '{"type":"Person","data":{"name":"alice","age":30}}',
    '{"type":"Person","data":{"name":"bob","age":25}}',
    '{"type":"Team","data":{"slug":"core"}}',
    '{"edge":"MemberOf","from":"alice","to":"core"}',
]) + "\n"

# Stored queries: one read, one mutation (names are the ledger's query names).
QUERIES = {
    "people": """query people() {
    match { $p: Person }
    return { $p.name, $p.age }
    order { $p.name }
}
""",
    "add_person": """query add_person($name: String, $age: I32) {
    insert Person { name: $name, age: $age }
}
""",
}

# Actors and their tokens. `stranger` is authenticated but in no group of any
# bundle, so every policy check denies it.
TOKENS = {
    "admin": "tok-admin",
    "reader": "tok-reader",
    "stranger": "tok-stranger",
}

GRAPH_POLICY = """version: 1
groups:
  admins: [admin]
  readers: [reader]
protected_branches: [main]
rules:
  - id: admins-data
    allow:
      actors: { group: admins }
      actions: [read, export, change]
      branch_scope: any
  - id: admins-invoke
    allow:
      actors: { group: admins }
      actions: [invoke_query]
  - id: admins-branches
    allow:
      actors: { group: admins }
      actions: [branch_create, branch_delete, branch_merge, schema_apply]
      target_branch_scope: any
  - id: readers-read
    allow:
      actors: { group: readers }
      actions: [read]
      branch_scope: any
"""

CLUSTER_POLICY = """version: 1
groups:
  admins: [admin]
rules:
  - id: admins-list
    allow:
      actors: { group: admins }
      actions: [graph_list]
"""


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run(argv, **kwargs):
    """Runs a command; a failure aborts the test with its output."""
    proc = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {' '.join(argv)} → rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


# ---------------------------------------------------------------------------
# The ledger, written by hand (spec/cluster.md §2). Isolated here so it can be
# replaced by `omnigraph cluster import && omnigraph cluster apply` once those
# verbs write it: only this function knows the on-disk layout.
# ---------------------------------------------------------------------------

def write_ledger(root, graphs, queries, policies):
    """Writes ROOT/__cluster/state.json and the catalog payloads.

    graphs:   list of graph ids (their roots are ROOT/graphs/<id>.omni)
    queries:  {(graph_id, name): gq source}
    policies: {name: (yaml source, applies_to list)}
    """
    resources = {}
    for graph_id in graphs:
        resources[f"graph.{graph_id}"] = {"digest": "x"}
    for (graph_id, name), source in queries.items():
        data = source.encode()
        digest = sha256_hex(data)
        folder = os.path.join(root, "__cluster", "resources", "query", graph_id, name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{digest}.gq"), "wb") as f:
            f.write(data)
        resources[f"query.{graph_id}.{name}"] = {"digest": digest}
    for name, (source, applies_to) in policies.items():
        data = source.encode()
        digest = sha256_hex(data)
        folder = os.path.join(root, "__cluster", "resources", "policy", name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{digest}.yaml"), "wb") as f:
            f.write(data)
        resources[f"policy.{name}"] = {"digest": digest, "applies_to": applies_to}
    state = {
        "version": 1,
        "state_revision": 1,
        "applied_revision": {"config_digest": None, "resources": resources},
        "resource_statuses": {},
        "approval_records": {},
        "recovery_records": {},
        "observations": {},
    }
    with open(os.path.join(root, "__cluster", "state.json"), "w") as f:
        json.dump(state, f, indent=2)


def build_cluster(omnigraph, root):
    """Creates graph g1 (schema + data) and its ledger under ROOT."""
    os.makedirs(os.path.join(root, "graphs"))
    fixtures = os.path.join(root, "fixtures")
    os.makedirs(fixtures)
    schema_path = os.path.join(fixtures, "schema.pg")
    data_path = os.path.join(fixtures, "data.jsonl")
    with open(schema_path, "w") as f:
        f.write(SCHEMA)
    with open(data_path, "w") as f:
        f.write(DATA)
    graph = os.path.join(root, "graphs", "g1.omni")
    run([omnigraph, "init", "--schema", schema_path, graph])
    run([omnigraph, "load", "--store", graph, "--data", data_path, "--mode", "overwrite"])
    write_ledger(
        root,
        graphs=["g1"],
        queries={("g1", name): source for name, source in QUERIES.items()},
        policies={
            "g1-policy": (GRAPH_POLICY, ["graph.g1"]),
            "cluster-policy": (CLUSTER_POLICY, ["cluster"]),
        },
    )


# ---------------------------------------------------------------------------
# The server process.
# ---------------------------------------------------------------------------

def start_server(server_binary, root, openapi, log_path, env_extra=None):
    """Boots the server on port 0; returns (process, "ip:port")."""
    env = dict(os.environ)
    env["OMNIGRAPH_SERVER_BEARER_TOKENS_JSON"] = json.dumps(TOKENS)
    env.update(env_extra or {})
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [server_binary, "--cluster", root, "--bind", "127.0.0.1:0", "--openapi", openapi],
        stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    line = proc.stdout.readline()  # blocks until the bind line or EOF
    prefix = "OMNIGRAPH_LISTEN_ADDR="
    if not line.startswith(prefix):
        proc.kill()
        proc.wait()
        log.close()
        sys.exit(f"FAIL: server did not report its address (got {line!r})\n{open(log_path).read()}")
    return proc, line[len(prefix):].strip()


def stop_server(proc, addr=None, timeout=20):
    """SIGTERM, then the exit status (the server must shut down cleanly).

    With `addr`, a client is left mid-request first (headers sent, body
    not finished): shutdown must not wait on it forever."""
    stalled = None
    if addr:
        host, port = addr.rsplit(":", 1)
        stalled = socket.create_connection((host, int(port)))
        stalled.sendall(b"POST /graphs/g1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        b"Content-Length: 100\r\n\r\n{")
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return "timeout (killed)"
    finally:
        if stalled:
            stalled.close()


def run_node(script, args, env_extra):
    env = dict(os.environ)
    env.update(env_extra)
    return subprocess.run(["node", os.path.join(HERE, script), *args], env=env).returncode


def serve_and_run(script, server_binary, root, openapi, log_path, server_env=None, script_env=None):
    """One server lifetime: boot, run the Node script, SIGTERM. Returns a
    list of failure lines (empty = pass)."""
    proc, addr = start_server(server_binary, root, openapi, log_path, server_env)
    try:
        env = {
            "OG_BASE_URL": f"http://{addr}",
            "OG_TOKENS_JSON": json.dumps(TOKENS),
            "OG_SCHEMA_SOURCE": SCHEMA,
            "OG_QUERY_NAMES": json.dumps(sorted(QUERIES)),
        }
        env.update(script_env or {})
        rc = run_node(script, [openapi], env)
    finally:
        started = time.monotonic()
        exit_status = stop_server(proc, addr)
    print(f"server exit status after SIGTERM (a client left mid-request): {exit_status}, "
          f"in {time.monotonic() - started:.1f} s")
    failures = []
    if rc != 0:
        failures.append(f"FAIL: {script} exited {rc}")
    if exit_status != 0:
        failures.append(f"FAIL: server exit status after SIGTERM is {exit_status}, expected 0")
    if failures:
        failures.append("---- server log (tail) ----\n" + "".join(open(log_path).readlines()[-40:]))
    return failures


def server_mode(mode, omnigraph, server_binary, openapi):
    script = {"conformance": "conformance.mjs", "policy_routes": "policy_routes.mjs"}[mode]
    work = tempfile.mkdtemp(prefix=f"og-server-{mode}-")
    ok = False
    try:
        root = os.path.join(work, "cluster")
        build_cluster(omnigraph, root)
        failures = serve_and_run(script, server_binary, root, openapi, os.path.join(work, "server.log"))
        if mode == "conformance":
            # A second boot with a 64-byte per-actor budget: every gated
            # write gets 429 (server.md §1.7).
            failures += serve_and_run(script, server_binary, root, openapi, os.path.join(work, "server-admission.log"),
                                      server_env={"OMNIGRAPH_PER_ACTOR_BYTES_MAX": "64"},
                                      script_env={"OG_PHASE": "admission"})
        for line in failures:
            print(line)
        ok = not failures
        return 0 if ok else 1
    finally:
        if ok or os.environ.get("OG_KEEP_WORK") != "1":
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"(work directory kept: {work})")
        if not ok:
            print("(set OG_KEEP_WORK=1 to keep the cluster and server log)")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    mode, omnigraph, server_binary, openapi = sys.argv[1:]
    if mode == "cedar":
        sys.exit(run_node("cedar_differential.mjs", [omnigraph], {}))
    if mode in ("conformance", "policy_routes"):
        sys.exit(server_mode(mode, omnigraph, server_binary, openapi))
    sys.exit(f"unknown mode {mode!r}\n{__doc__}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Load and fault test of omnigraph-server (issue 18, "Load and faults").

Usage: load_fault_test.py OMNIGRAPH_BINARY OMNIGRAPH_SERVER_BINARY [SECONDS]

1. Load: 32 concurrent keep-alive clients (four actors, eight each, so no
   actor passes its 16-request admission) mix reads, one-node inserts and
   branch create + insert + merge on one graph for SECONDS (default 30).
   Every acknowledged insert must be on main afterwards (merged ones too),
   no response may be a 5xx, and every status must be one the route can
   answer under contention. p50/p99 latency per kind is printed.
2. Crash: eight writers insert as fast as they can; the server is killed
   with SIGKILL mid-write. The graph must open and answer, with every
   acknowledged insert present, and the server must boot on it again.
"""
import hashlib
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time

import server_process

SCHEMA = "node Person {\n  name: String @key\n  age: I32?\n}\n"
INSERT = "query add($name: String) { insert Person { name: $name, age: 1 } }"
COUNT = "query n() { match { $p: Person } return { count($p) as people } }"
NAMES = "query names() { match { $p: Person } return { $p.name } }"
ACTORS = ["a1", "a2", "a3", "a4"]
TOKENS = {actor: "tok-" + actor for actor in ACTORS}
POLICY = """version: 1
groups:
  writers: [a1, a2, a3, a4]
rules:
  - id: data
    allow:
      actors: { group: writers }
      actions: [read, export, change]
      branch_scope: any
  - id: branches
    allow:
      actors: { group: writers }
      actions: [branch_create, branch_delete, branch_merge]
      target_branch_scope: any
"""


fail = server_process.fail


def make_cluster(og, root):
    """A storage root with graph g1 applied and POLICY bound to it, laid out
    as `cluster apply` leaves it (spec/cluster.md §2.1)."""
    subprocess.run([og, "init", "--schema", "/dev/stdin", os.path.join(root, "graphs", "g1.omni")],
                   input=SCHEMA, text=True, check=True, stdout=subprocess.DEVNULL)
    digest = hashlib.sha256(POLICY.encode()).hexdigest()
    policy_dir = os.path.join(root, "__cluster", "resources", "policy", "p")
    os.makedirs(policy_dir)
    with open(os.path.join(policy_dir, digest + ".yaml"), "w") as f:
        f.write(POLICY)
    state = {"version": 1, "state_revision": 1,
             "applied_revision": {"config_digest": None, "resources": {
                 "graph.g1": {"digest": "g1"}, "policy.p": {"digest": digest, "applies_to": ["graph.g1"]}}},
             "resource_statuses": {}, "approval_records": {}, "recovery_records": {}, "observations": {}}
    with open(os.path.join(root, "__cluster", "state.json"), "w") as f:
        json.dump(state, f)


def start_server(ogs, root):
    env = dict(os.environ, OMNIGRAPH_SERVER_BEARER_TOKENS_JSON=json.dumps(TOKENS))
    return server_process.start_server(ogs, root, env=env)


class Client:
    """One keep-alive connection acting for one actor."""

    def __init__(self, host, port, actor):
        self.connection = http.client.HTTPConnection(host, port, timeout=60)
        self.headers = {"Authorization": "Bearer " + TOKENS[actor], "Content-Type": "application/json"}

    def call(self, method, path, body=None):
        data = json.dumps(body) if body is not None else None
        self.connection.request(method, path, body=data, headers=self.headers)
        response = self.connection.getresponse()
        payload = response.read()
        return response.status, payload


def percentile(samples, p):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))] if ordered else 0.0


def names_on(og, graph, branch="main"):
    run = subprocess.run([og, "query", "-e", NAMES, "--store", graph, "--branch", branch, "--format", "jsonl"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        fail("reading the graph failed: " + run.stderr)
    return {json.loads(line)["p.name"] for line in run.stdout.splitlines()[1:]}


def load_phase(og, host, port, graph, seconds):
    acknowledged, lock = set(), threading.Lock()
    latencies = {"read": [], "insert": [], "merge": []}
    problems = []
    deadline = time.time() + seconds
    # Under contention a write may lose its race and answer 409 (read set
    # or branch changed); everything else must succeed.
    allowed = {"read": {200}, "insert": {200, 409}, "merge": {200, 409}}

    def record(kind, status, started, payload):
        elapsed = time.time() - started
        with lock:
            latencies[kind].append(elapsed)
            if status not in allowed[kind]:
                problems.append(f"{kind}: {status} {payload[:300]!r}")

    def worker(index):
        rng = random.Random(index)
        client = Client(host, port, ACTORS[index % len(ACTORS)])
        serial = 0
        while time.time() < deadline:
            serial += 1
            roll = rng.random()
            started = time.time()
            if roll < 0.6:
                status, payload = client.call("POST", "/graphs/g1/query", {"query": COUNT})
                record("read", status, started, payload)
            elif roll < 0.95:
                name = f"c{index}-{serial}"
                status, payload = client.call("POST", "/graphs/g1/mutate",
                                              {"query": INSERT, "params": {"name": name}})
                record("insert", status, started, payload)
                if status == 200:
                    with lock:
                        acknowledged.add(name)
            else:
                branch, name = f"b{index}-{serial}", f"m{index}-{serial}"
                status, payload = client.call("POST", "/graphs/g1/branches", {"name": branch, "from": "main"})
                if status != 200:
                    record("merge", status, started, payload)
                    continue
                status, payload = client.call("POST", "/graphs/g1/mutate",
                                              {"query": INSERT, "params": {"name": name}, "branch": branch})
                if status != 200:
                    record("merge", status, started, payload)
                    continue
                status, payload = client.call("POST", "/graphs/g1/branches/merge",
                                              {"source": branch, "target": "main", "delete_branch": True})
                record("merge", status, started, payload)
                if status == 200:
                    with lock:
                        acknowledged.add(name)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for kind, samples in latencies.items():
        print(f"load {kind:6}: n={len(samples):6}  p50={percentile(samples, 0.5) * 1000:8.2f} ms  "
              f"p99={percentile(samples, 0.99) * 1000:8.2f} ms")
    if problems:
        fail(f"{len(problems)} unexpected statuses, first: {problems[0]}")
    missing = acknowledged - names_on(og, graph)
    if missing:
        fail(f"{len(missing)} acknowledged writes are not on main, e.g. {sorted(missing)[:5]}")
    if len(latencies["insert"]) == 0 or len(latencies["merge"]) == 0:
        fail("the mix ran no inserts or no merges")
    print(f"load: {len(acknowledged)} acknowledged writes, all on main")


def crash_phase(og, ogs, root, graph):
    server, host, port = start_server(ogs, root)
    acknowledged, lock, stop = set(), threading.Lock(), threading.Event()

    def writer(index):
        client = Client(host, port, ACTORS[index % len(ACTORS)])
        serial = 0
        while not stop.is_set():
            serial += 1
            name = f"k{index}-{serial}"
            try:
                status, _ = client.call("POST", "/graphs/g1/mutate", {"query": INSERT, "params": {"name": name}})
            except (OSError, http.client.HTTPException):
                return  # the server died mid-request: not acknowledged
            if status == 200:
                with lock:
                    acknowledged.add(name)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(2.0)
    server.send_signal(signal.SIGKILL)
    server.wait()
    stop.set()
    for thread in threads:
        thread.join()
    if not acknowledged:
        fail("no write was acknowledged before the kill")
    missing = acknowledged - names_on(og, graph)
    if missing:
        fail(f"{len(missing)} acknowledged writes lost to SIGKILL, e.g. {sorted(missing)[:5]}")
    print(f"crash: {len(acknowledged)} acknowledged writes before SIGKILL, all present")
    server, host, port = start_server(ogs, root)
    status, payload = Client(host, port, "a1").call("POST", "/graphs/g1/query", {"query": COUNT})
    server.send_signal(signal.SIGTERM)
    code = server.wait(timeout=30)
    if status != 200:
        fail(f"the restarted server could not read the graph: {status} {payload!r}")
    if code != 0:
        fail(f"the server exited {code} on SIGTERM")
    print("crash: the server boots again and answers; SIGTERM exits 0")


def main():
    og, ogs = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
    with tempfile.TemporaryDirectory(prefix="ogload.") as root:
        make_cluster(og, root)
        graph = os.path.join(root, "graphs", "g1.omni")
        server, host, port = start_server(ogs, root)
        try:
            load_phase(og, host, port, graph, seconds)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        crash_phase(og, ogs, root, graph)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

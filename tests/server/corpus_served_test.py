#!/usr/bin/env python3
"""The corpus's industry-intel cookbook, set up by its own README's commands
and served from its own cluster.yaml and policies (issue 18).

Usage: corpus_served_test.py OMNIGRAPH OMNIGRAPH_SERVER CORPUS_DIR

Checks the gates its README states ("What the gates do (verified)"): GET
/graphs admin 200 / reader 403 / anonymous 401; stored reads 200 for a
reader; stored mutations 403 for a reader and 200 for an analyst. Then every
expected.json entry of the cookbook runs through POST
/graphs/spike/queries/{name} and must match exactly (corpus/README.md
rules: `key` + `expect`, or `rows` with `prefix`; ordered or as multisets).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

TOKENS = {"act-reader": "tok-reader", "act-analyst": "tok-analyst", "act-admin": "tok-admin"}


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, cwd):
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(args)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def call(base, method, path, actor=None, body=None):
    request = urllib.request.Request(base + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if actor:
        request.add_header("Authorization", "Bearer " + TOKENS[actor])
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def expect_status(label, got, want, body):
    if got != want:
        fail(f"{label}: status {got}, expected {want}: {body}")
    print(f"ok  {label}: {got}")


def canonical(value):
    return json.dumps(value, sort_keys=True)


def same_number_aware(a, b):
    # 30 and 30.0 are the same JSON number (corpus/README.md).
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return a == b
    return a == b


def check_entry(entry, rows):
    name = entry["name"]
    if "key" in entry:
        got = [row.get(entry["key"]) for row in rows]
        want = entry["expect"]
        if not entry["ordered"]:
            got, want = sorted(map(canonical, got)), sorted(map(canonical, want))
        if got != want:
            fail(f"query {name}: column {entry['key']} is {got}, expected {want}")
        return
    want = entry["rows"]
    columns = set().union(*(row.keys() for row in want)) if want else set()
    got = [{k: v for k, v in row.items() if k in columns} for row in rows]
    if entry.get("prefix"):
        got = got[:len(want)]
    if not want and rows:
        fail(f"query {name}: expected no rows, got {len(rows)}")
    if entry["ordered"] or entry.get("prefix"):
        ok = len(got) == len(want) and all(
            all(same_number_aware(g.get(k), w.get(k)) for k in w) for g, w in zip(got, want))
    else:
        normalize = lambda row: canonical({k: (float(v) if isinstance(v, (int, float)) and not isinstance(v, bool)
                                               else v) for k, v in row.items()})
        ok = sorted(map(normalize, got)) == sorted(map(normalize, want))
    if not ok:
        fail(f"query {name}: rows {got}, expected {want}")


def main():
    og, ogs, corpus = map(os.path.abspath, sys.argv[1:4])
    with open(os.path.join(corpus, "expected.json")) as f:
        expected = json.load(f)
    with tempfile.TemporaryDirectory(prefix="ogintel.") as scratch:
        cookbook = os.path.join(scratch, "industry-intel")
        shutil.copytree(os.path.join(corpus, "industry-intel"), cookbook)
        # The README's Quick Start, word for word (with <you> = tester).
        run([og, "cluster", "import", "--config", "."], cookbook)
        run([og, "cluster", "plan", "--config", "."], cookbook)
        run([og, "cluster", "apply", "--config", ".", "--as", "tester"], cookbook)
        run([og, "load", "--data", "seed.jsonl", "--mode", "overwrite", "graphs/spike.omni"], cookbook)

        env = dict(os.environ, OMNIGRAPH_SERVER_BEARER_TOKENS_JSON=json.dumps(TOKENS))
        # Its event log goes to a file: a pipe nobody drains would stop the
        # server once 64 KiB of log lines had filled it.
        log_path = os.path.join(scratch, "server.log")
        with open(log_path, "w") as log:
            server = subprocess.Popen([ogs, "--cluster", ".", "--bind", "127.0.0.1:0"], cwd=cookbook, env=env,
                                      stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            line = server.stdout.readline().strip()
            if not line.startswith("OMNIGRAPH_LISTEN_ADDR="):
                server.wait(timeout=10)
                with open(log_path) as log:
                    fail("the server did not start: " + line + log.read())
            base = "http://" + line.split("=", 1)[1]

            status, body = call(base, "GET", "/graphs", "act-admin")
            expect_status("GET /graphs as admin", status, 200, body)
            if [g["graph_id"] for g in body["graphs"]] != ["spike"]:
                fail(f"GET /graphs lists {body}")
            expect_status("GET /graphs as reader", *call(base, "GET", "/graphs", "act-reader")[:1], 403, "")
            expect_status("GET /graphs anonymous", *call(base, "GET", "/graphs")[:1], 401, "")
            status, body = call(base, "POST", "/graphs/spike/queries/recent_signals", "act-reader", {"params": {}})
            expect_status("stored read recent_signals as reader", status, 200, body)
            entries = [q for q in expected["queries"] if q["corpus"] == "industry-intel"]
            for entry in entries:
                status, body = call(base, "POST", f"/graphs/spike/queries/{entry['name']}", "act-reader",
                                    {"params": entry["params"]})
                if status != 200:
                    fail(f"stored query {entry['name']}: {status} {body}")
                check_entry(entry, body["rows"])
                print(f"ok  expected.json {entry['name']} {json.dumps(entry['params'])}")
            if not entries:
                fail("expected.json has no industry-intel entries")
            # The documented results hold on the seed; the analyst's write comes after them.
            signal_params = {"slug": "sig-served-test", "name": "Served test", "brief": "written over HTTP",
                             "stagingTimestamp": "2026-12-03T00:00:00Z", "createdAt": "2026-12-03T00:00:00Z",
                             "updatedAt": "2026-12-03T00:00:00Z"}
            status, body = call(base, "POST", "/graphs/spike/queries/add_signal", "act-reader",
                                {"params": signal_params})
            expect_status("stored mutation add_signal as reader", status, 403, body)
            status, body = call(base, "POST", "/graphs/spike/queries/add_signal", "act-analyst",
                                {"params": signal_params})
            expect_status("stored mutation add_signal as analyst", status, 200, body)
            if body.get("actor_id") != "act-analyst" or body.get("affected_nodes") != 1:
                fail(f"add_signal receipt {body}")

        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
    print("PASS")


if __name__ == "__main__":
    main()

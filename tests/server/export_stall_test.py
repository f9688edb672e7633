#!/usr/bin/env python3
"""A client that stops reading an export does not grow the server's memory
(spec/server.md §1.6; src/server/export_stream.h).

Usage: export_stall_test.py OMNIGRAPH_BINARY OMNIGRAPH_SERVER_BINARY

1. A graph of TYPES node types whose NDJSON export is ~40 MiB (rows with
   4 KiB string bodies) is loaded with the CLI and served in Open mode.
2. A raw socket posts /graphs/g1/export, reads the first few KiB and stops
   reading. The server's VmRSS (/proc/<pid>/status) is sampled for
   STALL_SECONDS while the client stalls; a /query must answer meanwhile.
3. RSS must stay within STALL_GROWTH_BOUND of the first stalled sample, and
   within HELD_BOUND of the RSS before the export started; both bounds are
   asserted to be far below the export's size, so a server that buffered
   the unread export would fail.
4. The socket is closed; the server must answer /healthz and a full export
   (the stalled one's slot was given back).
"""
import base64
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

import server_process

MIB = 1024 * 1024
NEWLINE = b"\n"
TYPES = 8
ROWS_PER_TYPE = 1250
BODY_BYTES = 4096
STALL_SECONDS = 5.0
# While stalled, the export thread waits for room in its channel: at most
# kExportQueuedPieces (2) pieces of ~64 KiB queued plus one being written,
# and the written bytes sit in kernel socket buffers (not in VmRSS). Growth
# after the stall began is allocator noise plus those pieces: 4 MiB leaves
# room for malloc arena slack and is still a tenth of the export.
STALL_GROWTH_BOUND = 4 * MIB
# From before the export (measured after a full export and three queries,
# so memory they freed is already resident): a running export holds the
# lines of the table it is on until they are in id order, at most one
# 32 MiB sort run (exec/ordered_lines.h; here a table is ~5 MiB of bodies),
# plus the pieces, its thread's stack and its arena. 16 MiB bounds that and
# is well below the ~40 MiB a server buffering the unread export would add
# (with kExportQueuedPieces raised to 100000 this test measured 35 MiB held
# and failed).
HELD_BOUND = 16 * MIB
SCHEMA_TEMPLATE = "node Doc{index} {{\n  name: String @key\n  body: String\n}}\n"


fail = server_process.fail


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    fail("no VmRSS in /proc/%d/status" % pid)


def make_cluster(og, root):
    """A storage root with graph g1 loaded, laid out as `cluster apply`
    leaves it (spec/cluster.md §2.1)."""
    graph = os.path.join(root, "graphs", "g1.omni")
    schema = "".join(SCHEMA_TEMPLATE.format(index=i) for i in range(TYPES))
    subprocess.run([og, "init", "--schema", "/dev/stdin", graph], input=schema, text=True, check=True,
                   stdout=subprocess.DEVNULL)
    data = os.path.join(root, "data.jsonl")
    rng = random.Random(7)
    with open(data, "w") as out:
        for t in range(TYPES):
            for r in range(ROWS_PER_TYPE):
                body = base64.b64encode(rng.randbytes(BODY_BYTES * 3 // 4)).decode()
                out.write(json.dumps({"type": f"Doc{t}", "data": {"name": f"d{r:06d}", "body": body}}) + "\n")
    subprocess.run([og, "load", "--data", data, "--mode", "overwrite", graph], check=True,
                   stdout=subprocess.DEVNULL)
    os.remove(data)
    os.makedirs(os.path.join(root, "__cluster"))
    state = {"version": 1, "state_revision": 1,
             "applied_revision": {"config_digest": None, "resources": {"graph.g1": {"digest": "g1"}}},
             "resource_statuses": {}, "approval_records": {}, "recovery_records": {}, "observations": {}}
    with open(os.path.join(root, "__cluster", "state.json"), "w") as f:
        json.dump(state, f)


def start_server(ogs, root):
    return server_process.start_server(ogs, root, ["--unauthenticated"])


def request(host, port, method, path, body=None, timeout=10):
    """One request on its own connection; returns (status, body bytes)."""
    payload = json.dumps(body).encode() if body is not None else b""
    with socket.create_connection((host, port), timeout=timeout) as conn:
        conn.sendall(f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                     f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n".encode() + payload)
        received = bytearray()
        while True:
            chunk = conn.recv(1 << 16)
            if not chunk:
                break
            received += chunk
    head, _, rest = bytes(received).partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" in head.lower():
        body_bytes, position = bytearray(), 0
        while True:
            end = rest.index(b"\r\n", position)
            size = int(rest[position:end], 16)
            if size == 0:
                break
            body_bytes += rest[end + 2:end + 2 + size]
            position = end + 2 + size + 2
        rest = bytes(body_bytes)
    return status, rest


def main():
    if len(sys.argv) != 3:
        fail(__doc__)
    og, ogs = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as root:
        started = time.time()
        make_cluster(og, root)
        print(f"set-up: {time.time() - started:.1f} s")
        server, host, port = start_server(ogs, root)
        try:
            run(server, host, port)
        finally:
            server.kill()
            server.wait()
    print("PASS")


def run(server, host, port):
    # The full export once: its size, and a warm server (catalog, caches).
    status, full = request(host, port, "POST", "/graphs/g1/export", {}, timeout=60)
    if status != 200:
        fail(f"a full export answered {status}: {full[:200]!r}")
    export_size = len(full)
    lines = full.count(b"\n")
    if lines != TYPES * ROWS_PER_TYPE:
        fail(f"the export has {lines} lines, expected {TYPES * ROWS_PER_TYPE}")
    del full
    print(f"export: {export_size} bytes ({export_size / MIB:.1f} MiB), {lines} rows")
    # The bounds must be able to fail: a server that buffered the unread
    # export would grow by most of it.
    if export_size < 2 * HELD_BOUND or export_size < 8 * STALL_GROWTH_BOUND:
        fail(f"the export ({export_size} bytes) is too small for the bounds to mean anything")

    # The query answered during the stall, once first, so its own working
    # memory is resident before the baseline.
    query = {"query": "query n() { match { $d: Doc3 } return { count($d) as docs } }"}
    for _ in range(3):
        status, body = request(host, port, "POST", "/graphs/g1/query", query)
        if status != 200 or json.loads(body)["rows"] != [{"docs": ROWS_PER_TYPE}]:
            fail(f"a query answered {status}: {body[:200]!r}")
    time.sleep(0.5)
    before = rss_bytes(server.pid)
    stalled = socket.create_connection((host, port))
    # A small receive buffer, so the kernel holds little of the export for
    # the stalled client and the server's writes block early.
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    stalled.sendall(b"POST /graphs/g1/export HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 2\r\n\r\n{}")
    first = bytearray()
    stalled.settimeout(10)
    while len(first) < 4096:
        chunk = stalled.recv(4096 - len(first))
        if not chunk:
            fail("the export ended before 4 KiB")
        first += chunk
    if not first.startswith(b"HTTP/1.1 200"):
        fail(f"the stalled export answered {bytes(first[:80])!r}")
    # Let the server fill the socket buffers and block on the channel.
    time.sleep(1.0)
    samples = []
    answered = 0
    deadline = time.time() + STALL_SECONDS
    while time.time() < deadline:
        samples.append(rss_bytes(server.pid))
        status, body = request(host, port, "POST", "/graphs/g1/query", query)
        if status != 200 or json.loads(body)["rows"] != [{"docs": ROWS_PER_TYPE}]:
            fail(f"a query during the stall answered {status}: {body[:200]!r}")
        answered += 1
        time.sleep(0.25)
    samples.append(rss_bytes(server.pid))
    growth_during_stall = max(samples) - samples[0]
    held = max(samples) - before
    print(f"rss before export: {before / MIB:.1f} MiB; while stalled: "
          f"{min(samples) / MIB:.1f}..{max(samples) / MIB:.1f} MiB over {len(samples)} samples; "
          f"growth during stall {growth_during_stall / MIB:.2f} MiB (bound {STALL_GROWTH_BOUND / MIB:.0f}); "
          f"held above the pre-export RSS {held / MIB:.2f} MiB (bound {HELD_BOUND / MIB:.0f}); "
          f"{answered} queries answered")
    if growth_during_stall > STALL_GROWTH_BOUND:
        fail(f"RSS grew by {growth_during_stall} bytes while the client stalled")
    if held > HELD_BOUND:
        fail(f"the stalled export holds {held} bytes above the pre-export RSS")

    stalled.close()
    time.sleep(0.5)
    if server.poll() is not None:
        fail(f"the server exited ({server.returncode}) after the stalled client left")
    status, body = request(host, port, "GET", "/healthz")
    if status != 200:
        fail(f"/healthz answered {status} after the stalled client left")
    # Every slot free again: the abandoned export ended (a leaked slot
    # would eventually refuse exports with 413).
    for _ in range(9):
        status, body = request(host, port, "POST", "/graphs/g1/export", {"type_names": ["Doc0"]}, timeout=60)
        if status != 200 or body.count(b"\n") != ROWS_PER_TYPE:
            fail(f"an export after the stall answered {status} with {body.count(NEWLINE)} lines")


if __name__ == "__main__":
    main()

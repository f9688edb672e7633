#!/usr/bin/env python3
"""How requests end when the server stops, and how a streamed export ends
when storage fails (spec/server.md §1.1 graceful shutdown, §1.6 export).

Usage: export_endings_test.py OMNIGRAPH_BINARY OMNIGRAPH_SERVER_BINARY

1. Graceful stop: a client reads the first 64 KiB of a ~40 MiB export, the
   server gets SIGTERM, then the client reads on. The server accepts no new
   connection, but the export already under way is sent whole (its last
   chunk included, every row there), and then the server exits with 0.
2. Graceful stop during an upload: a client sends a /load request's header
   and half its body, the server gets SIGTERM, then the client sends the
   rest. The load is answered 200 and committed, then the server exits 0.
3. Failure after 200: a client reads the first 64 KiB of an export, then the
   node tables' files are moved away. The tables still to be scanned cannot
   be read, so the body must end without its last chunk: the client sees a
   truncated body, not a short export that looks complete. The server keeps
   serving, and with the files back a full export is whole again.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import export_stall_test as stall
import server_process

fail = server_process.fail
EXPORT_REQUEST = (b"POST /graphs/g1/export HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 2\r\n\r\n{}")
ROWS = stall.TYPES * stall.ROWS_PER_TYPE


def open_export(host, port, first_bytes=64 * 1024):
    """Posts an export on a socket with a small receive buffer and reads
    `first_bytes`; returns the socket and what was read."""
    conn = socket.create_connection((host, port))
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    conn.settimeout(30)
    conn.sendall(EXPORT_REQUEST)
    received = bytearray()
    while len(received) < first_bytes:
        chunk = conn.recv(first_bytes - len(received))
        if not chunk:
            fail("the export ended before its first 64 KiB")
        received += chunk
    if not received.startswith(b"HTTP/1.1 200"):
        fail(f"the export answered {bytes(received[:80])!r}")
    return conn, received


def read_rest(conn, received):
    """Reads until the server closes; returns (complete, body): whether the
    chunked body ended with its last chunk, and the body's bytes."""
    while True:
        try:
            chunk = conn.recv(1 << 16)
        except ConnectionResetError:
            break
        if not chunk:
            break
        received += chunk
    conn.close()
    head, _, rest = bytes(received).partition(b"\r\n\r\n")
    if b"transfer-encoding: chunked" not in head.lower():
        fail(f"the export is not chunked: {head!r}")
    body, position = bytearray(), 0
    while True:
        end = rest.find(b"\r\n", position)
        if end < 0:
            return False, bytes(body)
        size = int(rest[position:end], 16)
        if size == 0:
            return True, bytes(body)
        if len(rest) < end + 2 + size + 2:
            body += rest[end + 2:]
            return False, bytes(body)
        body += rest[end + 2:end + 2 + size]
        position = end + 2 + size + 2


def expect_clean_exit(server, after):
    """The stopping server exits 0 within 15 s, once `after` happened."""
    try:
        code = server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        fail(f"the server did not exit after {after}")
    if code != 0:
        fail(f"the server exited with {code} after a graceful stop")


def graceful_stop(ogs, root):
    server, host, port = stall.start_server(ogs, root)
    try:
        conn, received = open_export(host, port)
        server.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        try:
            socket.create_connection((host, port), timeout=2).close()
            fail("the stopping server accepted a new connection")
        except OSError:
            pass
        complete, body = read_rest(conn, received)
        if not complete:
            fail(f"the stop cut the export under way after {len(body)} bytes")
        if body.count(b"\n") != ROWS:
            fail(f"the export sent during the stop has {body.count(stall.NEWLINE)} rows, expected {ROWS}")
        expect_clean_exit(server, "its last export ended")
        print(f"graceful stop: the export under way ended whole ({len(body)} bytes, {ROWS} rows); exit 0")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def graceful_stop_during_upload(og, ogs, root):
    server, host, port = stall.start_server(ogs, root)
    try:
        record = json.dumps({"type": "Doc0", "data": {"name": "uploaded", "body": "x" * 1000}})
        body = json.dumps({"branch": "main", "mode": "merge", "data": record + "\n" + " " * (1 << 20)}).encode()
        conn = socket.create_connection((host, port))
        conn.settimeout(30)
        conn.sendall(b"POST /graphs/g1/load HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body[:len(body) // 2])
        time.sleep(0.5)
        server.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        conn.sendall(body[len(body) // 2:])
        response = bytearray()
        while True:
            chunk = conn.recv(1 << 16)
            if not chunk:
                break
            response += chunk
        conn.close()
        if not response.startswith(b"HTTP/1.1 200"):
            fail(f"a load uploading during the stop answered {bytes(response[:200])!r}")
        expect_clean_exit(server, "the upload's request ended")
        query = subprocess.run([og, "query", "--store", os.path.join(root, "graphs", "g1.omni"), "-e",
                                'query q() { match { $d: Doc0 { name: "uploaded" } } return { $d.name } }',
                                "--format", "jsonl"], capture_output=True, text=True)
        if query.stdout.strip().splitlines()[-1:] != ['{"d.name":"uploaded"}']:
            fail(f"the load answered during the stop is not in the graph: {query.stdout!r} {query.stderr!r}")
        print("graceful stop during an upload: the load was answered 200 and committed; exit 0")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def failure_after_200(ogs, root):
    server, host, port = stall.start_server(ogs, root)
    nodes = os.path.join(root, "graphs", "g1.omni", "nodes")
    try:
        conn, received = open_export(host, port)
        os.rename(nodes, nodes + ".moved")
        try:
            complete, body = read_rest(conn, received)
        finally:
            os.rename(nodes + ".moved", nodes)
        if complete:
            fail(f"an export whose tables vanished ended with a last chunk ({body.count(stall.NEWLINE)} rows)")
        if server.poll() is not None:
            fail(f"the server exited ({server.returncode}) after a failed export")
        status, _ = stall.request(host, port, "GET", "/healthz")
        if status != 200:
            fail(f"/healthz answered {status} after a failed export")
        status, full = stall.request(host, port, "POST", "/graphs/g1/export", {}, timeout=60)
        if status != 200 or full.count(b"\n") != ROWS:
            fail(f"the export after the files came back answered {status} with {full.count(stall.NEWLINE)} rows")
        print(f"failure after 200: the body ended without its last chunk after {len(body)} bytes; "
              f"the next export is whole")
    finally:
        server.kill()
        server.wait()


def main():
    if len(sys.argv) != 3:
        fail(__doc__)
    og, ogs = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as root:
        stall.make_cluster(og, root)
        graceful_stop(ogs, root)
        failure_after_200(ogs, root)
        graceful_stop_during_upload(og, ogs, root)  # last: it adds a row
    print("PASS")


if __name__ == "__main__":
    main()

"""What the Python server tests share: failing a test, and starting
omnigraph-server on 127.0.0.1 with port 0 (it prints the address it bound)."""
import subprocess
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def start_server(ogs, root, args=(), env=None):
    """Starts `ogs --cluster root --bind 127.0.0.1:0 *args`; returns the
    process, host and port once it has printed OMNIGRAPH_LISTEN_ADDR."""
    process = subprocess.Popen([ogs, "--cluster", root, "--bind", "127.0.0.1:0", *args], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline().strip()
    if not line.startswith("OMNIGRAPH_LISTEN_ADDR="):
        process.kill()
        fail("the server did not report its address: " + line)
    host, port = line.split("=", 1)[1].rsplit(":", 1)
    return process, host, int(port)

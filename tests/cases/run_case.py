#!/usr/bin/env python3
"""Runs one bug-report case from ../shared/cases against the omnigraph CLI.

Usage: run_case.py OMNIGRAPH_BINARY CASE_DIR [OMNIGRAPH_SERVER_BINARY]

The case's steps.sh prints a `## Sxx` header per step followed by its
normalized output; expected.txt holds the same with `# ` explanation lines.
Steps are compared one by one (../shared/cases/README.md):
  * JSON lines as parsed values with key order preserved and numbers
    compared by value (66 == 66.0); an expected JSON string also matches
    the same text printed bare; everything else as exact text;
  * a failed command's stderr, printed by the steps as `stderr: ` lines, is
    not part of the exact comparison (the README: "compare by the
    substring named in expected.txt, not the exact text"); an explanation
    line that is exactly one quoted string, `# "text"`, names such a
    substring, and the step's stderr must contain it. Expected `stderr: `
    lines, where a step lists them, are compared like any other line.
Exits 0 when every step matches, 1 otherwise with a report naming the
first differing step.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

QUOTED = re.compile(r'^# "(.*)"$')
STDERR = "stderr: "


def parse_json(text):
    try:
        return True, json.loads(text, object_pairs_hook=lambda pairs: ("object", pairs))
    except ValueError:
        return False, None


def same_value(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, tuple) and isinstance(b, tuple):
        pa, pb = a[1], b[1]
        return len(pa) == len(pb) and all(ka == kb and same_value(va, vb) for (ka, va), (kb, vb) in zip(pa, pb))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def same_line(expected, actual):
    if expected == actual:
        return True
    ok_e, value_e = parse_json(expected)
    ok_a, value_a = parse_json(actual)
    if ok_e and ok_a:
        return same_value(value_e, value_a)
    # A JSON string and the same bare text are one value printed two ways
    # (`jq -r` prints the bare word where expected.txt may quote it, as
    # branches/B18's merge helper does).
    return ok_e and isinstance(value_e, str) and value_e == actual


def steps(lines):
    """[(header, lines)] with the lines before the first header under '(preamble)'."""
    out, header, current = [], "(before the first step)", []
    for line in lines:
        if line.startswith("## "):
            out.append((header, current))
            header, current = line, []
        else:
            current.append(line)
    out.append((header, current))
    return out


def compare_step(expected, actual):
    """None when the step matches, else a description of the first difference."""
    substrings = [m.group(1) for m in (QUOTED.match(line) for line in expected) if m]
    expected = [line for line in expected if not (line.startswith("# ") or line == "#")]
    lists_stderr = any(line.startswith(STDERR) for line in expected)
    stderr = "\n".join(line[len(STDERR):] for line in actual if line.startswith(STDERR))
    if not lists_stderr:
        actual = [line for line in actual if not line.startswith(STDERR)]
    expected = [line for line in expected if line != ""]
    actual = [line for line in actual if line != ""]
    for i in range(max(len(expected), len(actual))):
        e = expected[i] if i < len(expected) else "<end of step>"
        a = actual[i] if i < len(actual) else "<end of step>"
        if not same_line(e, a):
            return f"line {i + 1}\n  expected: {e}\n  actual:   {a}"
    for text in substrings:
        if stderr and text not in stderr:
            return f"stderr does not mention {text!r}:\n  {stderr}"
    return None


def main():
    binary, case_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="ogcase.") as scratch:
        env = dict(os.environ, OG=binary, G=os.path.join(scratch, "graph"))
        if len(sys.argv) > 3:  # server cases: the omnigraph-server binary
            env["OGS"] = os.path.abspath(sys.argv[3])
        run = subprocess.run(["bash", "steps.sh"], cwd=case_dir, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=600)
    with open(os.path.join(case_dir, "expected.txt"), encoding="utf-8") as f:
        expected = steps(f.read().splitlines())
    actual = dict(steps(run.stdout.splitlines()))
    headers = [h for h, _ in expected]
    if headers != [h for h, _ in steps(run.stdout.splitlines())]:
        print(f"{os.path.basename(case_dir)}: the steps differ from expected.txt's")
        print("---- full output ----")
        print(run.stdout)
        return 1
    for header, lines in expected:
        difference = compare_step(lines, actual[header])
        if difference:
            print(f"{os.path.basename(case_dir)}: first difference in {header}, {difference}")
            print("---- full output ----")
            print(run.stdout)
            return 1
    print(f"{os.path.basename(case_dir)}: {len(headers) - 1} steps match")
    return 0


if __name__ == "__main__":
    sys.exit(main())

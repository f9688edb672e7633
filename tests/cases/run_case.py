#!/usr/bin/env python3
"""Runs one bug-report case from ../shared/cases against the omnigraph CLI.

Usage: run_case.py OMNIGRAPH_BINARY CASE_DIR

The case's steps.sh prints a `## Sxx` header per step followed by its
normalized output; expected.txt holds the same with `# ` explanation lines.
Lines are compared one by one: JSON values as parsed values with key order
preserved and numbers compared by value (66 == 66.0, as the case README
allows), everything else as exact text. Exits 0 when equal, 1 otherwise
with a report naming the first differing step.
"""
import json
import os
import subprocess
import sys
import tempfile


def significant(lines):
    return [line for line in lines if not (line.startswith("# ") or line == "#")]


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
    return ok_e and ok_a and same_value(value_e, value_a)


def main():
    binary, case_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="ogcase.") as scratch:
        env = dict(os.environ, OG=binary, G=os.path.join(scratch, "graph"))
        run = subprocess.run(["bash", "steps.sh"], cwd=case_dir, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=600)
    actual = run.stdout.splitlines()
    with open(os.path.join(case_dir, "expected.txt"), encoding="utf-8") as f:
        expected = significant(f.read().splitlines())
    step = "(before the first step)"
    for i in range(max(len(expected), len(actual))):
        e = expected[i] if i < len(expected) else "<end of output>"
        a = actual[i] if i < len(actual) else "<end of output>"
        if e.startswith("## "):
            step = e
        if not same_line(e, a):
            print(f"{os.path.basename(case_dir)}: first difference in {step}, line {i + 1}")
            print(f"  expected: {e}")
            print(f"  actual:   {a}")
            print("---- full output ----")
            print(run.stdout)
            return 1
    print(f"{os.path.basename(case_dir)}: {sum(1 for l in expected if l.startswith('## '))} steps match")
    return 0


if __name__ == "__main__":
    sys.exit(main())

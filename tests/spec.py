#!/usr/bin/env python3
"""spec.py BIN SPECFILE: run the many small cases of one spec file.

A spec file holds cases, each:

    ### NAME
    args: ARGS            (optional: shell-quoted, after "strata")
    INPUT                 (lines fed to standard input)
    --- stdout
    EXPECTED STDOUT
    --- stderr            (optional; absent: must be empty)
    EXPECTED STDERR
    --- status N          (optional; absent: 0)

Input and expected texts are the lines between the markers; a final
newline is dropped from the input (model replies rarely end in one) and
kept on the expected texts.  A line "\\" alone stands for an empty line
at the end of a block.  Commands run in the spec file's directory with the
environment pinned, so paths in messages are stable.  UPDATE_SPEC=1
rewrites the expected sections from what strata printed.
"""
import os
import shlex
import subprocess
import sys


def parse(text):
    cases, cur, section = [], None, None
    for line in text.split("\n"):
        if line.startswith("### "):
            cur = {"name": line[4:].strip(), "args": "", "input": [],
                   "stdout": [], "stderr": None, "status": 0}
            cases.append(cur)
            section = "input"
            continue
        if cur is None:
            continue            # the file's preamble
        if section == "input" and not cur["input"] and line.startswith("args:"):
            cur["args"] = line[5:].strip()
            continue
        if line == "--- stdout":
            section = "stdout"
            continue
        if line == "--- stderr":
            section = "stderr"
            cur["stderr"] = []
            continue
        if line.startswith("--- status "):
            cur["status"] = int(line.split()[2])
            section = None
            continue
        if section:
            cur[section].append(line)
    return cases


def block(lines):
    while lines and lines[-1] == "":
        lines = lines[:-1]
    lines = ["" if l == "\\" else l for l in lines]
    return "\n".join(lines) + "\n" if lines else ""


def render(c, out, err, status):
    parts = ["### " + c["name"]]
    if c["args"]:
        parts.append("args: " + c["args"])
    parts += c["input"] and block(c["input"]).rstrip("\n").split("\n") or []
    parts.append("--- stdout")
    if out:
        parts.append(out.rstrip("\n"))
    if err:
        parts.append("--- stderr")
        parts.append(err.rstrip("\n"))
    if status:
        parts.append("--- status %d" % status)
    return "\n".join(parts) + "\n"


def main():
    binary, spec = os.path.abspath(sys.argv[1]), sys.argv[2]
    with open(spec, encoding="utf-8") as f:
        text = f.read()
    preamble = text[:text.find("### ")] if "### " in text else text
    cases = parse(text)
    env = dict(os.environ, LC_ALL="C.UTF-8", TZ="UTC", NO_COLOR="1")
    wrapper = shlex.split(os.environ.get("STRATA_WRAPPER", ""))
    failed, rendered = 0, []
    for c in cases:
        stdin = block(c["input"])
        if stdin.endswith("\n"):
            stdin = stdin[:-1]
        r = subprocess.run(wrapper + [binary] + shlex.split(c["args"]),
                           input=stdin.encode(), capture_output=True,
                           cwd=os.path.dirname(os.path.abspath(spec)),
                           env=env)
        out = r.stdout.decode("utf-8", "replace")
        err = r.stderr.decode("utf-8", "replace")
        want_out = block(c["stdout"])
        want_err = block(c["stderr"] or [])
        rendered.append(render(c, out, err, r.returncode))
        if (out, err, r.returncode) != (want_out, want_err, c["status"]):
            failed += 1
            print("FAIL %s" % c["name"])
            for what, got, want in (("stdout", out, want_out),
                                    ("stderr", err, want_err)):
                if got != want:
                    print("  %s:\n    got:  %r\n    want: %r" % (what, got, want))
            if r.returncode != c["status"]:
                print("  status: got %d, want %d" % (r.returncode, c["status"]))
    if os.environ.get("UPDATE_SPEC"):
        with open(spec, "w", encoding="utf-8") as f:
            f.write(preamble + "\n".join(rendered))
        print("rewrote %s" % spec)
        return 0
    print("%s: %d cases, %d failed" % (os.path.basename(spec), len(cases), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

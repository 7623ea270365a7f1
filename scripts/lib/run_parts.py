#!/usr/bin/env python3
"""Runs the test parts (scripts/test-parts/*.sh) a few at a time, for scripts/test.sh.

  run_parts.py --jobs N --logs DIR --timings FILE PART.sh...

Most parts wait on one core (valgrind, a Python or Node test run, a JVM, pip), so two at a time
fill the machine's two cores where one at a time left one idle. A part names the parts it must
follow in a comment line `# after: NAME ...` (what they build or install, it uses or replaces);
the rest may run at any time. Ready parts start in the order given. Each part's output goes to
DIR/NAME.log and is printed whole when the part ends, so the log reads part by part. After a
failure no part starts; those running finish, and the exit status is 1. FILE gets one line per
part: its wall time and name.
"""
import argparse
import os
import re
import subprocess
import sys
import time

AFTER = re.compile(r"^#\s*after:\s*(.*)$")


def dependencies(path):
    """The parts PATH's `# after:` lines name."""
    names = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = AFTER.match(line.strip())
            if m:
                names.extend(m.group(1).split())
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--logs", required=True)
    ap.add_argument("--timings", required=True)
    ap.add_argument("parts", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.logs, exist_ok=True)
    name_of = {p: os.path.basename(p)[: -len(".sh")] for p in args.parts}
    known = set(name_of.values())
    after = {}
    for p in args.parts:
        deps = dependencies(p)
        unknown = [d for d in deps if d not in known]
        if unknown:
            sys.exit(f"{p}: `# after:` names {', '.join(unknown)}, which is not a part of this run")
        after[name_of[p]] = set(deps)

    waiting = list(args.parts)
    running = {}  # name -> (process, log file, start)
    done, failed = set(), []
    last_note = time.monotonic()
    while waiting or running:
        if not failed:
            for p in list(waiting):
                if len(running) >= args.jobs:
                    break
                name = name_of[p]
                if after[name] <= done:
                    waiting.remove(p)
                    log = open(os.path.join(args.logs, name + ".log"), "w+b")
                    proc = subprocess.Popen(["bash", p], stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)
                    running[name] = (proc, log, time.monotonic())
                    print(f"--> {name} started", flush=True)
        elif not running:
            break
        if not running:
            # Nothing runs and nothing can start: a cycle among the `# after:` lines.
            sys.exit("parts wait on each other: " + ", ".join(name_of[p] for p in waiting))
        time.sleep(0.2)
        for name, (proc, log, start) in list(running.items()):
            code = proc.poll()
            if code is None:
                continue
            seconds = time.monotonic() - start
            del running[name]
            log.seek(0)
            sys.stdout.write(f"\n==> {name}\n")
            sys.stdout.flush()
            sys.stdout.buffer.write(log.read())
            log.close()
            verdict = "ok" if code == 0 else f"FAILED (exit {code})"
            print(f"<-- {name}: {verdict} in {seconds:.0f} s", flush=True)
            with open(args.timings, "a", encoding="utf-8") as t:
                t.write(f"{seconds:5.0f} s  {name}{'' if code == 0 else '  FAILED'}\n")
            if code == 0:
                done.add(name)
            else:
                failed.append(name)
        if running and time.monotonic() - last_note > 120:
            last_note = time.monotonic()
            print("... running: " + ", ".join(
                f"{n} ({time.monotonic() - s:.0f} s)" for n, (_, _, s) in running.items()), flush=True)
    if failed:
        print("failed: " + ", ".join(failed) + (
            "; not started: " + ", ".join(name_of[p] for p in waiting) if waiting else ""),
            file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

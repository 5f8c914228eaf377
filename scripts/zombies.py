#!/usr/bin/env python3
"""Runs sdrify many times under a parent that never waits for grandchildren, as a container's PID 1 that is a queue
worker may be, and counts the zombies left: processes sdrify started (its output helpers) that ended after it and
were handed to this parent, which made itself their reaper (prctl PR_SET_CHILD_SUBREAPER) and never reaps them.

    scripts/zombies.py SDRIFY WORKDIR [RUNS] [KIND]     (KIND: only that kind of run, "opening" say, RUNS times)

The runs cycle through what a worker sees: a conversion, an HLS ladder (a directory helper), a thumbnail, a usage
error, a damaged input, a --timeout that trips, a SIGTERM during a conversion, and a SIGTERM while the outputs are
being opened (a seeded delay of 30-150 ms: the helper may be mid-fork; before 2026-11-28 about one such run in a
hundred left a zombie). Each run's own process is waited for by its pid (as any worker does). Prints one JSON
object: runs, exit statuses seen, zombies left; exits 1 when any zombie is left.
"""
import ctypes
import json
import os
import random
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def zombies_of(parent):
    """Children of `parent` that are zombies (state Z), by their /proc/PID/stat."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if fields[0] == "Z" and int(fields[1]) == parent:
            found.append((int(name), stat[stat.index("(") + 1:stat.rindex(")")]))
    return found


def wait_until_handled(pid, sig, limit=10.0):
    """Until `pid` has a handler for `sig` (its SigCgt in /proc), that is until main has started, or has ended. On a
    loaded machine starting the program alone has taken more than the half second the "sigterm" run waits, and the
    signal met the default action."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        with open(f"/proc/{pid}/status") as f:  # there until this script reaps it
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        if fields["State"].split()[0] == "Z" or int(fields["SigCgt"], 16) >> (sig - 1) & 1:
            return
        time.sleep(0.005)


def main():
    sdrify, work = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    small = os.path.join(root, "testvectors", "orient_6.mp4")  # quick to convert: most runs
    clip = os.path.join(root, "testvectors", "sample_hlg_portrait.mov")  # long enough to be stopped
    damaged = os.path.join(root, "testvectors", "truncated.mp4")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit(f"zombies: prctl(PR_SET_CHILD_SUBREAPER) failed: {os.strerror(ctypes.get_errno())}")
    kinds = [
        ("convert", [small, "{out}.mp4", "-q"], None),
        ("hls", ["hls", small, "{out}-hls", "--ladder", "240", "-q"], None),
        ("thumbnail", ["thumbnail", small, "{out}.jpg", "-q"], None),
        ("usage", [small, "{out}.mp4", "--speed", "9"], None),
        ("damaged", [damaged, "{out}.mp4", "-q"], None),
        ("timeout", [clip, "{out}.mp4", "--preset", "1920x1080", "--timeout", "0.3", "-q"], None),
        ("sigterm", [clip, "{out}.mp4", "--preset", "1920x1080", "-q"], 0.5),
        ("opening", ["hls", clip, "{out}-hls", "--ladder", "240", "-q"], "early"),
    ]
    if len(sys.argv) > 4:
        names = [k[0] for k in kinds]
        if sys.argv[4] not in names:
            sys.exit(f"zombies: no kind of run named {sys.argv[4]} (one of {', '.join(names)})")
        kinds = [k for k in kinds if k[0] == sys.argv[4]]
    early = random.Random(1)
    statuses = {}
    for i in range(runs):
        name, args, kill_after = kinds[i % len(kinds)]
        out = os.path.join(work, f"run{i}")
        child = subprocess.Popen([sdrify] + [a.replace("{out}", out) for a in args],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if kill_after == "early":
            time.sleep(early.uniform(0.03, 0.15))
        elif kill_after is not None:
            wait_until_handled(child.pid, signal.SIGTERM)  # then a SIGTERM during the conversion, not before main
            time.sleep(kill_after)
        if kill_after is not None:
            # (Not send_signal: it polls first, and a child that has ended is reaped there, before the waitpid below.
            # Unreaped, the pid cannot have been reused.)
            os.kill(child.pid, signal.SIGTERM)
        _, status = os.waitpid(child.pid, 0)  # this run's own process only, never any child (-1)
        child.returncode = os.waitstatus_to_exitcode(status)
        statuses.setdefault(name, set()).add(child.returncode)
    time.sleep(1)  # a helper handed over late has ended by now
    left = zombies_of(os.getpid())
    print(json.dumps({"runs": runs, "statuses": {k: sorted(v) for k, v in statuses.items()},
                      "zombies": len(left), "zombie_names": sorted({n for _, n in left})}))
    sys.exit(1 if left else 0)


if __name__ == "__main__":
    main()

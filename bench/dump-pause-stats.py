#!/usr/bin/env python3
"""bench/dump-pause-stats.py: the figures of bench/dump-pause.sh.

  prof HELD JSON      prof's json of K snapshots, and the held lines the
                      target's measured spinners printed meanwhile
                      (examples/stuck.c: "held TID NS RUNQ_NS END"):
                      each spinner capture is matched to the gap of its
                      loop that contains the capture's stop time, which
                      gives the time it was really held (the oracle).
  windows HELD FILE   FILE: "FROM TO" line ranges of HELD, one per run of
                      a tool without capture times (eu-stack, gdb): each
                      spinner's largest gap in the run is its hold.
Prints "key value" lines (ms) for the shell to format."""
import json
import sys


def held_lines(path):
    out = []
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) == 5 and f[0] == "held":
            out.append((int(f[1]), int(f[2]), int(f[3]), int(f[4])))
    return out


def dist(v):
    v = sorted(v)
    if not v:
        return "n/a"
    return "%.3f/%.3f/%.3f" % (v[len(v) // 2] / 1e6, v[min(len(v) - 1, int(len(v) * 0.99))] / 1e6,
                               v[-1] / 1e6)


def prof(held, js):
    d = json.load(open(js))
    gaps = {}
    for tid, ns, q, end in held_lines(held):
        gaps.setdefault(tid, []).append((end - ns - q, end, ns))
    ths = [t for t in d["threads"] if t["captured"]]
    oracle, own_spin, missed = [], [], 0
    for t in ths:
        if not t["name"].startswith("spin-"):
            continue
        # its detach ends its gap (before d9e39a4 time_ns was the detach)
        detach = t["time_ns"] + (t["pause_ns"] if "stop_wait_ns" in t else 0)
        m = [ns for start, end, ns in gaps.get(t["tid"], [])
             if start - 5000 <= detach <= end + 5000]
        own_spin.append(t["pause_ns"])
        if m:
            oracle.append(max(m))
        else:
            missed += 1
            oracle.append(0)  # no gap over 2 us: held less than that
    snaps = {}
    for t in ths:
        snaps.setdefault(t["snapshot"], []).append(t["time_ns"])
    skews = [max(v) - min(v) for v in snaps.values()]
    print("oracle", dist(oracle))
    print("oracle_n", len(oracle), "unmatched", missed)
    print("own_spin", dist(own_spin))
    print("own_all", dist([t["pause_ns"] for t in ths]))
    print("wait_all", dist([t.get("stop_wait_ns", 0) for t in ths]))
    print("skew", dist(skews))


def windows(held, ranges):
    lines = open(held, errors="replace").read().splitlines()
    per = []
    for r in open(ranges):
        a, b = map(int, r.split())
        best = {}
        for line in lines[a:b]:
            f = line.split()
            if len(f) == 5 and f[0] == "held":
                best[f[1]] = max(best.get(f[1], 0), int(f[2]))
        per.extend(best.values())
    print("oracle", dist(per))


if __name__ == "__main__":
    if sys.argv[1] == "prof":
        prof(sys.argv[2], sys.argv[3])
    else:
        windows(sys.argv[2], sys.argv[3])

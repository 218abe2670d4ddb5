#!/usr/bin/env python3
"""The daemon's layering, read from its object files (gcc-nm: the build
uses LTO).  Usage: check_layering.py BUILD_DIR/daemon

1. No two files of daemon/ call each other in a circle (a file that calls
   a function of another is one edge; no cycle of any length).
2. Each folder references only the folders it may (daemon/meson.build):
   the core knows neither targets nor backends; backends know only the
   core's services; targets know backends and the core's services; the
   CLI knows the core and the table of targets.

Prints each violation on one line and exits 1 if there is any.
"""
import glob
import os
import subprocess
import sys

ALLOWED = {
    "core": {"core"},
    "backends": {"backends", "core"},
    "targets": {"targets", "backends", "core"},
    "cli": {"cli", "core", "targets"},
    "inproc": {"inproc", "core"},
}


def symbols(obj):
    out = subprocess.run(["gcc-nm", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            defined.add(parts[2])
    return defined, undefined


def source_of(obj):
    """libvublk_core.a.p/core_server.c.o -> core/server.c"""
    name = os.path.basename(obj)[:-len(".o")]
    folder, _, rest = name.partition("_")
    return folder + "/" + rest


def main():
    objs = sorted(set(glob.glob(os.path.join(sys.argv[1], "*.p", "*.c.o"))))
    # The in-process harness stands in for the core: it defines the same
    # services, so it is checked for its own edges only.
    files = {}
    for obj in objs:
        src = source_of(obj)
        if src.split("/")[0] in ALLOWED and src not in files:
            files[src] = symbols(obj)
    owner = {}
    for src, (defined, _) in files.items():
        if src.startswith("inproc/"):
            continue
        for sym in defined:
            owner[sym] = src
    edges = {src: set() for src in files}
    for src, (_, undefined) in files.items():
        for sym in undefined:
            dst = owner.get(sym)
            if dst and dst != src:
                edges[src].add((dst, sym))
    bad = 0
    for src in sorted(edges):
        folder = src.split("/")[0]
        for dst, sym in sorted(edges[src]):
            if dst.split("/")[0] not in ALLOWED[folder]:
                print(f"layering: {src} uses {sym} of {dst}")
                bad += 1
    graph = {src: {dst for dst, _ in e} for src, e in edges.items()}
    state = {}

    def visit(node, path):
        nonlocal bad
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycle = path[path.index(nxt):] + [nxt]
                print("cycle: " + " -> ".join(cycle))
                bad += 1
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    if not files:
        print("layering: no object files under " + sys.argv[1])
        return 1
    print(f"{len(files)} files, {sum(len(g) for g in graph.values())} "
          f"file-to-file edges, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

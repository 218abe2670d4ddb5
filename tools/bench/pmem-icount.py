#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pmem-icount.py: instructions per request of `vublk-bench pmem`'s target
side, counted by callgrind, for builds compared where wall-clock time is
too noisy (docs/PERFORMANCE.md, issue 12).  This host's guest has no PMU
(`perf stat -e instructions` is not supported), and callgrind counts
exactly, whatever the load.

Usage (from the repo, on the host):
  tools/bench/pmem-icount.py BUILD...      # e.g. ../base/build build

Per build: one `vublk-bench pmem` run (PAGE granularity, 128 MiB in
/dev/shm, --seconds 1) under callgrind, split at each bp_compare() (the
write workload, then the read one), and per request of the target side:
the core's validation and the harness's queue (inlined into the bench
loop, vublk_complete_io() too unless it is called), the target's
queue_io with all it calls, and the copy routine (pmem_guarded_call +
libpmem2 for writes, pmem_copy_mc for reads), printed apart: callgrind
counts a `rep movsb` once per byte, so the copies are the same in every
build but would drown the rest.
Slow: about two minutes per build.
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

QUEUE_IO = ('pmem_tgt_queue_io', 'loop_queue_io')	# before / after the reshape
COPIES = ('pmem_guarded_call', 'pmem_copy_mc')
# The harness's, called by it rather than by queue_io since queue_io
# returns a synchronous request's result (when not inlined).
HARNESS_CALLS = ('vublk_complete_io',)


def position(tok, prev):
    """A callgrind position: absolute, relative (+n, -n) or the same (*)."""
    if tok == '*':
        return prev
    return prev + int(tok, 0) if tok[0] in '+-' else int(tok, 0)


def parse(path):
    """Self cost per (function, file, line) and (calls, inclusive cost)
    per call arc, from a callgrind file with positions 'instr line'."""
    names, selfc = {}, collections.Counter()
    arcs = collections.defaultdict(lambda: [0, 0])
    fn = cfn = fl = fi = None
    addr = line = 0
    calls = None

    def name(spec):
        m = re.match(r'\((\d+)\)(?: (.*))?', spec)
        if not m:
            return spec
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names[m.group(1)]

    for raw in open(path):
        key, _, val = raw.rstrip('\n').partition('=')
        if key == 'fl':
            fl = fi = name(val)
        elif key in ('fi', 'fe'):
            fi = name(val)
        elif key == 'fn':
            fn, fi = name(val), fl
        elif key == 'cfn':
            cfn = name(val)
        elif key in ('cfl', 'cfi'):
            name(val)
        elif key == 'calls':
            calls = int(val.split()[0])
        elif raw[:1].isdigit() or raw[:1] in '+-*':
            toks = raw.split()
            addr = position(toks[0], addr)
            line = position(toks[1], line)
            cost = int(toks[2]) if len(toks) > 2 else 0
            if calls is None:
                selfc[(fn, fi, line)] += cost
            else:
                arcs[(fn, cfn)][0] += calls
                arcs[(fn, cfn)][1] += cost
                calls = None
    return selfc, arcs


def target_io_lines(root):
    """bench_pmem.c's bp_target_io(): the lines of the iod it builds."""
    src = open(f'{root}/tools/vublk-bench/bench_pmem.c').read().splitlines()
    first = next(i for i, l in enumerate(src, 1)
                 if l.startswith('static int bp_target_io'))
    last = next(i for i, l in enumerate(src, 1) if i > first and l == '}')
    return first, last


def per_request(path, lines):
    """{part: instructions per target request} of one workload."""
    selfc, arcs = parse(path)
    qio = next(c for (f, c) in arcs if f == 'bp_compare' and c in QUEUE_IO)
    n, inclusive = arcs[('bp_compare', qio)]
    copy = sum(cost for (f, c), (_, cost) in arcs.items()
               if c in COPIES and f != 'bp_compare')
    parts = collections.Counter()
    for (f, fi, line), cost in selfc.items():
        if f != 'bp_compare' or not fi:
            continue
        if '/daemon/' in fi:
            parts['core + harness: ' + fi.split('/daemon/')[1]] += cost
        elif fi.endswith('bench_pmem.c') and lines[0] <= line <= lines[1]:
            parts['bench: the iod'] += cost
    for (f, c), (_, cost) in arcs.items():
        if f == 'bp_compare' and c in HARNESS_CALLS:
            parts['core + harness: ' + c] += cost
    parts[f'{qio} and what it calls, but the copy'] = inclusive - copy
    total = sum(parts.values())
    out = {k: v / n for k, v in sorted(parts.items())}
    out['= target side, without the copy routine'] = total / n
    out['  the copy routine'] = copy / n
    return n, out


def measure(build, tmp):
    root = os.path.dirname(os.path.abspath(build.rstrip('/')))
    out = f'{tmp}/{len(os.listdir(tmp))}.cg'
    img = f'/dev/shm/vublk-icount.{os.getpid()}.img'
    subprocess.run(['valgrind', '--tool=callgrind', '--dump-instr=yes',
                    '--dump-before=bp_compare', f'--callgrind-out-file={out}',
                    f'{build}/tools/vublk-bench/vublk-bench', 'pmem', img,
                    '--seconds', '1', '--size', '128'],
                   check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    lines = target_io_lines(root)
    # Part 1 is the set-up, part 2 the writes, the last one the reads.
    return [(w,) + per_request(p, lines)
            for w, p in (('write', f'{out}.2'), ('read', out))]


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith('-'):
        print(__doc__.split('\n\n')[1].strip(), file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        for build in sys.argv[1:]:
            for work, n, parts in measure(build, tmp):
                print(f'{build} {work} ({n} requests): instructions per request')
                for k, v in parts.items():
                    print(f'  {v:8.1f}  {k}')
    return 0


if __name__ == '__main__':
    sys.exit(main())

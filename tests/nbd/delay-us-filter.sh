#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/bench/nbdkit-delay-us.c, the filter nbd-latency.sh uses for
# sub-millisecond latencies: reads through it return the export's bytes,
# each read takes at least delay-read-us (a lower bound, which a sleep
# guarantees: not a timing test), and a bad value stops nbdkit with its
# error.
# usage: delay-us-filter.sh FILTER.so
set -u
FILTER=${1:?usage: delay-us-filter.sh FILTER.so}
T=$(mktemp -d /var/tmp/vublk-delay-us.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
command -v qemu-img >/dev/null && command -v qemu-io >/dev/null ||
	{ echo "SKIP: needs qemu-img and qemu-io (apt-get install qemu-utils)"; exit 77; }

head -c 1M /dev/urandom >"$T/img"
# serve US COMMAND: COMMAND runs with $nbd set to the export's URI.
serve() {
	nbdkit -U - --filter="$FILTER" -r file "$T/img" delay-read-us="$1" \
		--run "$2"
}

serve 200 'qemu-img convert -f raw -O raw "$nbd" '"$T/copy" ||
	fail "qemu-img convert through the filter failed"
cmp -s "$T/img" "$T/copy" || fail "the bytes read through the filter differ"

# 100 reads one after the other, each delayed 2 ms: at least 200 ms.
cat >"$T/reads.sh" <<'SH'
s=$(date +%s%N)
for _ in $(seq 100); do echo "read 0 4k"; done | qemu-io -r -f raw "$1" >/dev/null || exit 1
echo $(( ($(date +%s%N) - s) / 1000000 ))
SH
ms=$(serve 2000 "sh $T/reads.sh \"\$nbd\"")
if ! [[ $ms =~ ^[0-9]+$ ]]; then
	fail "qemu-io through the filter failed"
elif [ "$ms" -lt 200 ]; then
	fail "100 reads delayed 2 ms each took $ms ms"
fi

out=$(serve 0.2 true 2>&1) && fail "delay-read-us=0.2 accepted"
grep -q 'delay-read-us' <<<"$out" || fail "delay-read-us=0.2: nbdkit said '$out'"

[ $failed = 0 ] && echo OK
exit $failed

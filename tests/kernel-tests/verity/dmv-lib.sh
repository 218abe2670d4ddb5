# SPDX-License-Identifier: GPL-2.0-only
# Shared by the kernel tests that take the kernel's dm-verity as the oracle
# for vublk's --format=dm-verity (08-dm-verity-format, 09-dm-verity-options;
# sourced, not run): on top of lib.sh, veritysetup open/close with cleanup
# at exit, dm-verity's tree geometry, a byte flip, and `scan`, which reads
# every block of a dm-verity device and a vublk device in one python3
# process and compares what each returns.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_cmd veritysetup cmp

export DM_DISABLE_UDEV=1
DM_PREFIX=vublk${TEST_NAME%%-*}	# vublk08, vublk09...
DM_OPEN=()	# dm-verity devices open, closed at exit

dm_close_all() {
	local name
	for name in "${DM_OPEN[@]}"; do
		[ -e "/dev/mapper/$name" ] && veritysetup close "$name"
	done
	DM_OPEN=()
}
trap 'dm_close_all; cleanup' EXIT

# dm_open NAME DATA HASH ROOT [OPTIONS]: veritysetup open; sets DM.
dm_open() {
	local name=$DM_PREFIX-$1
	veritysetup open "$2" "$name" "$3" "$4" "${@:5}" || return 1
	DM_OPEN+=("$name")
	DM=/dev/mapper/$name
	[ -b "$DM" ] || fail "veritysetup open $name made no $DM"
}

dm_close() {
	veritysetup close "$DM_PREFIX-$1" || fail "veritysetup close $DM_PREFIX-$1 failed"
	[ ! -e "/dev/mapper/$DM_PREFIX-$1" ] || fail "$DM_PREFIX-$1 still exists after close"
}

vublk_del() {
	"$VUBLK" del -n "$ID" || fail "vublk del -n $ID failed"
	[ ! -e "$DEV" ] || fail "$DEV still exists after del"
}

# veritysetup format DATA HASH [OPTIONS]: the root hash.
format() {
	veritysetup format "$@" | sed -n 's/^Root hash:[[:space:]]*//p'
}

# Where dm-verity's tree levels are (drivers/md/dm-verity-target.c,
# verity_ctr()): hashes per block is the largest power of 2 that fits,
# the levels are stored top first from the tree's start.
# tree_geometry BLOCKS HASH_BLOCK_SIZE DIGEST_SIZE: sets HPB, LEVELS, L0_AT
# (first level-0 block, in hash blocks from the tree's start) and
# L0_BLOCKS.
tree_geometry() {
	local n=$1 bits=0 i s
	while [ $((1 << (bits + 1))) -le $(($2 / $3)) ]; do bits=$((bits + 1)); done
	HPB=$((1 << bits))
	LEVELS=0
	while [ $(((n - 1) >> (bits * LEVELS))) -gt 0 ]; do LEVELS=$((LEVELS + 1)); done
	[ "$LEVELS" -ge 2 ] || fail "test images must have 2 levels or more, not $LEVELS"
	L0_AT=0
	for ((i = LEVELS - 1; i >= 1; i--)); do
		s=$(((n + (1 << ((i + 1) * bits)) - 1) >> ((i + 1) * bits)))
		L0_AT=$((L0_AT + s))
	done
	L0_BLOCKS=$(((n + HPB - 1) / HPB))
}

# flip FILE POS: XOR the byte at POS with 0xff, written through to the file
# (fsync), so that a loop device over it reads it whatever its caching.
flip() {
	python3 - "$1" "$2" <<'PY' || fail "cannot flip byte $2 of $1"
import os, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1)[0]
    f.seek(int(sys.argv[2])); f.write(bytes([b ^ 0xff]))
    f.flush(); os.fsync(f.fileno())
PY
}

# scan WHAT DM VUBLK BS BLOCKS LO HI [FILE]: read every block of both
# devices (DM may be "-": none) with O_DIRECT, in one process, a thread a
# device; the blocks whose read fails with EIO must be the same on both,
# and [LO, HI) ("- -": none); the blocks that read must read the same
# bytes on both and, with FILE, FILE's bytes at the same offsets.  Any
# other error fails.  Under TCG each request costs milliseconds, so the
# blocks are read 64 at a time, and one by one in a run of 64 whose read
# fails: both devices verify every block of a request.
scan() {
	local out
	out=$(python3 - "$@" <<'PY'
import errno, mmap, os, sys, threading, time

what = sys.argv[1]
devs = [d for d in sys.argv[2:4] if d != "-"]
bs, n = int(sys.argv[4]), int(sys.argv[5])
none = sys.argv[6] == "-"
lo, hi = (0, 0) if none else (int(sys.argv[6]), int(sys.argv[7]))
expect = sys.argv[8] if len(sys.argv) > 8 else None
RUN = 64
results = [None] * len(devs)

def scan(i, dev):
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    size = os.lseek(fd, 0, os.SEEK_END)
    if size != n * bs:
        raise Exception(f"{dev} has {size} bytes, expected {n * bs}")
    run, one = mmap.mmap(-1, RUN * bs), mmap.mmap(-1, bs)
    data, failed, reads, start = bytearray(n * bs), [], 0, time.monotonic()

    def read(buf, b, k):
        nonlocal reads
        reads += 1
        try:
            r = os.preadv(fd, [memoryview(buf)[:k * bs]], b * bs)
        except OSError as e:
            if e.errno != errno.EIO:
                raise Exception(f"{dev} blocks {b}+{k}: {e}, not EIO")
            return False
        if r != k * bs and k == 1:
            raise Exception(f"{dev} block {b}: read {r} bytes of {bs}")
        data[b * bs:(b + k) * bs] = buf[:k * bs]
        return r == k * bs

    for b in range(0, n, RUN):
        k = min(RUN, n - b)
        if not read(run, b, k):
            failed += [c for c in range(b, b + k) if not read(one, c, 1)]
    os.close(fd)
    return failed, data, reads, time.monotonic() - start

def worker(i, dev):
    try:
        results[i] = scan(i, dev)
    except Exception as e:
        results[i] = str(e)

threads = [threading.Thread(target=worker, args=(i, d)) for i, d in enumerate(devs)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for r in results:
    if isinstance(r, str):
        sys.exit(f"{what}: {r}")

def ranges(blocks):
    out, start = [], None
    for j, b in enumerate(blocks):
        if start is None:
            start = b
        if j + 1 == len(blocks) or blocks[j + 1] != b + 1:
            out.append(f"{start}" if start == b else f"{start}-{b}")
            start = None
    return ",".join(out) or "none"

want = list(range(lo, hi))
bad = False
for d, (f, _, reads, secs) in zip(devs, results):
    print(f"{what}: {d}: {len(f)} of {n} blocks fail with EIO: {ranges(f)} "
          f"({reads} reads, {secs:.1f} s)")
    bad |= f != want
fails = set().union(*(r[0] for r in results))
differ = []
if len(devs) == 2:
    a, b = results[0][1], results[1][1]
    differ = [c for c in range(n) if c not in fails and
              a[c * bs:(c + 1) * bs] != b[c * bs:(c + 1) * bs]]
if differ:
    print(f"{what}: blocks read differently: {ranges(differ)}")
unlike = []
if expect:
    with open(expect, "rb") as f:
        ref = f.read(n * bs)
    for d, r in zip(devs, results):
        u = [c for c in range(n) if c not in r[0] and
             r[1][c * bs:(c + 1) * bs] != ref[c * bs:(c + 1) * bs]]
        if u:
            print(f"{what}: {d}: blocks unlike {expect}: {ranges(u)}")
        unlike += u
if bad or differ or unlike or (not want and not none):
    sys.exit(f"{what}: expected EIO on blocks {ranges(want)} on both, "
             f"the others reading the same bytes"
             + (f", those of {expect}" if expect else ""))
PY
	)
	local status=$?
	echo "$out"
	if [ $status -ne 0 ]; then
		dmesg | grep -i verity | tail -n 5
		[ -n "${ID:-}" ] && tail -n 5 "$(device_log "$ID")"
		fail "$1: dm-verity and vublk disagree"
	fi
}

# same_bytes WHAT SIZE DATA: $DM and $DEV read the SIZE bytes of DATA.
same_bytes() {
	[ "$(blockdev --getsize64 "$DM")" = "$2" ] || fail "$1: $DM is not $2 bytes"
	[ "$(blockdev --getsize64 "$DEV")" = "$2" ] || fail "$1: $DEV is not $2 bytes"
	cmp "$DM" "$DEV" || fail "$1: dm-verity and vublk read different bytes"
	cmp -n "$2" "$DEV" "$3" || fail "$1: vublk did not read the data"
	say "$1: both read the same $2 bytes, the data"
}

# same_image CASE WHAT DATA HASH ROOT SIZE DM_OPTS VUBLK_OPTS: veritysetup
# open and vublk add over the same DATA and HASH (DM_OPTS and VUBLK_OPTS
# name arrays of the extra options of each; @HASH@ in VUBLK_OPTS: the hash
# file) read the same SIZE bytes, those of DATA; both are closed after.
same_image() {
	local -n dm_opts=$7 vublk_opts=$8
	dm_open "$1" "$3" "$4" "$5" "${dm_opts[@]}" ||
		fail "($1): veritysetup open failed"
	vublk_add -t verity --format=dm-verity -f "$3" --root-hash="$5" \
		"${vublk_opts[@]/@HASH@/$4}"
	same_bytes "$2" "$6" "$3"
	dm_close "$1"
	vublk_del
}

# Byte flips in copies of an image, each read through a fresh dm-verity
# device and a fresh vublk device: the same blocks must fail on both.
# damage_setup CASE DATA HASH HASH_AT ROOT BS HBS DS DM_OPTS VUBLK_OPTS:
# the image.  DATA and HASH may be the same file (the hash area inside
# the data); HASH_AT is the tree's start in HASH; BS and HBS the data and
# hash block sizes; DS the digest size.  DM_OPTS and VUBLK_OPTS name arrays
# of the extra options of each (@HASH@ in VUBLK_OPTS: the hash file).  The
# data blocks: $BLOCKS (the superblock's or --data-blocks), else the file's.
damage_setup() {
	DC_CASE=$1 DC_DATA=$2 DC_HASH=$3 DC_AT=$4 DC_ROOT=$5 DC_BS=$6 DC_HBS=$7
	DC_DM_OPTS=$9 DC_VUBLK_OPTS=${10}
	DC_BLOCKS=${BLOCKS:-$(($(stat -c %s "$DC_DATA") / DC_BS))}
	tree_geometry "$DC_BLOCKS" "$DC_HBS" "$8"
	say "$DC_CASE: $DC_BLOCKS blocks of $DC_BS, hash blocks of $DC_HBS, $HPB hashes a block, $LEVELS levels, level 0 at tree block $L0_AT"
}

# damage_run WHAT data|hash POS LO HI: flip byte POS of a copy of the data
# or the hash file; blocks [LO, HI) must fail on both.
damage_run() {
	local -n dm_opts=$DC_DM_OPTS vublk_opts=$DC_VUBLK_OPTS
	local what="$DC_CASE, $1" start=$EPOCHREALTIME ms
	local bad_data=$T/$DC_CASE-data.bad bad_hash=$T/$DC_CASE-hash.bad
	local d_file=$DC_DATA h_file=$DC_HASH same=0
	[ "$DC_DATA" = "$DC_HASH" ] && same=1
	if [ "$2" = data ]; then
		cp "$DC_DATA" "$bad_data" || fail "cannot copy $DC_DATA"
		flip "$bad_data" "$3"
		d_file=$bad_data
		[ $same = 1 ] && h_file=$bad_data
	else
		cp "$DC_HASH" "$bad_hash" || fail "cannot copy $DC_HASH"
		flip "$bad_hash" "$3"
		h_file=$bad_hash
		[ $same = 1 ] && d_file=$bad_hash
	fi
	dm_open "$DC_CASE-bad" "$d_file" "$h_file" "$DC_ROOT" "${dm_opts[@]}" ||
		fail "$what: veritysetup open failed"
	vublk_add -t verity --format=dm-verity -f "$d_file" --root-hash="$DC_ROOT" \
		"${vublk_opts[@]/@HASH@/$h_file}"
	scan "$what" "$DM" "$DEV" "$DC_BS" "$DC_BLOCKS" "$4" "$5"
	dm_close "$DC_CASE-bad"
	vublk_del
	rm -f "$bad_data" "$bad_hash"
	ms=$(((${EPOCHREALTIME/./} - ${start/./}) / 1000))
	say "$what: the same blocks fail on both ($((ms / 1000)).$((ms % 1000 / 100)) s)"
}

# damage_data: a byte of the data block a third of the way in fails it.
damage_data() {
	local d=$((DC_BLOCKS / 3))
	damage_run "data block $d" data $((d * DC_BS + 123)) $d $((d + 1))
}

# damage_level0 J: a byte of level-0 hash block J fails the data blocks
# it covers (fewer for the last one).
damage_level0() {
	local j=$1 lo hi
	lo=$((j * HPB)) hi=$(((j + 1) * HPB))
	[ $hi -le "$DC_BLOCKS" ] || hi=$DC_BLOCKS
	damage_run "level-0 hash block $j" hash \
		$((DC_AT + (L0_AT + j) * DC_HBS + 17)) $lo $hi
}

# damage_top: a byte of the top hash block fails every data block.
damage_top() {
	damage_run "top hash block" hash $((DC_AT + 2)) 0 "$DC_BLOCKS"
}

#!/bin/bash
# The kernel's dm-verity as the oracle for vublk's --format=dm-verity: over
# the SAME files, `veritysetup open` and `vublk add -t verity
# --format=dm-verity` must
#  1. read the same bytes, for three images `veritysetup format` writes:
#     (a) a superblock in a separate hash file (its defaults: sha256, 4 KiB
#         blocks, a random salt);
#     (b) --no-superblock, sha512, 1 KiB blocks, a 100-byte salt;
#     (c) the hash area inside the data file, at --hash-offset;
#  2. fail the same reads after the same byte flip: in a data block (of a
#     copy of the data), in a level-0 hash block and in the top hash block
#     (of copies of the hash area).  One python3 process reads every block
#     of both devices with O_DIRECT (64 at a time, one by one where such a
#     read fails) and lists the blocks whose read fails with EIO: the lists
#     must be equal, non-empty and the expected range (one block; the
#     blocks the level-0 block covers, fewer for the last one; all);
#  3. with a wrong root hash: veritysetup open refuses, or every read of
#     the device fails; vublk checks lazily, as dm-verity does at read
#     time: every read fails with EIO.  Neither gives any data.
# Both run with their defaults on corruption (EIO).
. "$(dirname "$0")/lib.sh"
need_cmd veritysetup cmp

export DM_DISABLE_UDEV=1
DM_PREFIX=vublk08
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

# Where dm-verity's tree levels are (drivers/md/dm-verity-target.c,
# verity_ctr()): hashes per block is the largest power of 2 that fits,
# the levels are stored top first from the tree's start.
# tree_geometry BLOCKS BLOCK_SIZE DIGEST_SIZE: sets HPB, LEVELS, L0_AT
# (first level-0 block, in blocks from the tree's start) and L0_BLOCKS.
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

# flip FILE POS: XOR the byte at POS with 0xff.
flip() {
	python3 - "$1" "$2" <<'PY' || fail "cannot flip byte $2 of $1"
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1)[0]
    f.seek(int(sys.argv[2])); f.write(bytes([b ^ 0xff]))
PY
}

# scan WHAT DM VUBLK BS BLOCKS LO HI: read every block of both devices
# (DM may be "-": none) with O_DIRECT, in one process, a thread a device;
# the blocks whose read fails with EIO must be the same on both, and
# [LO, HI); the blocks that read must read the same bytes on both.  Any
# other error fails.  Under TCG each request costs milliseconds, so the
# blocks are read 64 at a time, and one by one in a run of 64 whose read
# fails: both devices verify every block of a request.
scan() {
	local out
	out=$(python3 - "$@" <<'PY'
import errno, mmap, os, sys, threading, time

what = sys.argv[1]
devs = [d for d in sys.argv[2:4] if d != "-"]
bs, n, lo, hi = map(int, sys.argv[4:8])
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
differ = []
if len(devs) == 2:
    fails = set(results[0][0]) | set(results[1][0])
    a, b = results[0][1], results[1][1]
    differ = [c for c in range(n) if c not in fails and
              a[c * bs:(c + 1) * bs] != b[c * bs:(c + 1) * bs]]
if differ:
    print(f"{what}: blocks read differently: {ranges(differ)}")
if bad or differ or not want:
    sys.exit(f"{what}: expected EIO on blocks {ranges(want)} on both, "
             f"the others reading the same bytes")
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

# damage_case CASE DATA HASH HASH_AT ROOT BS DS DM_OPTS VUBLK_OPTS: the
# three flips.  DATA and HASH may be the same file (the hash area inside
# the data); HASH_AT is the tree's start in HASH.  DM_OPTS and VUBLK_OPTS
# name arrays of the extra options of each.
damage_case() {
	local c=$1 data=$2 hash=$3 at=$4 root=$5 bs=$6 ds=$7
	local -n dm_opts=$8 vublk_opts=$9
	local n=$(($(stat -c %s "$data") / bs)) blocks same=0 d j lo hi
	local bad_data=$T/$c-data.bad bad_hash=$T/$c-hash.bad
	[ "$data" = "$hash" ] && same=1
	# The data blocks: the superblock's or --data-blocks, else the file's.
	blocks=${BLOCKS:-$n}
	tree_geometry "$blocks" "$bs" "$ds"
	say "$c: $blocks blocks of $bs, $HPB hashes a block, $LEVELS levels, level 0 at tree block $L0_AT"

	# run_flip WHAT FILE POS LO HI
	run_flip() {
		local what="$c, $1" file=$2 pos=$3 start=$EPOCHREALTIME ms
		local d_file=$data h_file=$hash
		if [ "$file" = data ]; then
			cp "$data" "$bad_data" || fail "cannot copy $data"
			flip "$bad_data" "$pos"
			d_file=$bad_data
			[ $same = 1 ] && h_file=$bad_data
		else
			cp "$hash" "$bad_hash" || fail "cannot copy $hash"
			flip "$bad_hash" "$pos"
			h_file=$bad_hash
			[ $same = 1 ] && d_file=$bad_hash
		fi
		dm_open "$c-bad" "$d_file" "$h_file" "$root" "${dm_opts[@]}" ||
			fail "$what: veritysetup open failed"
		vublk_add -t verity --format=dm-verity -f "$d_file" --root-hash="$root" \
			"${vublk_opts[@]/@HASH@/$h_file}"
		scan "$what" "$DM" "$DEV" "$bs" "$blocks" "$4" "$5"
		dm_close "$c-bad"
		vublk_del
		rm -f "$bad_data" "$bad_hash"
		ms=$(((${EPOCHREALTIME/./} - ${start/./}) / 1000))
		say "$what: the same blocks fail on both ($((ms / 1000)).$((ms % 1000 / 100)) s)"
	}

	d=$((blocks / 3))
	run_flip "data block $d" data $((d * bs + 123)) $d $((d + 1))
	j=$((L0_BLOCKS - 1))	# the last one: its range is clipped
	[ "$c" = b ] && j=$((L0_BLOCKS / 2))
	lo=$((j * HPB)) hi=$(((j + 1) * HPB))
	[ $hi -le "$blocks" ] || hi=$blocks
	run_flip "level-0 hash block $j" hash $((at + (L0_AT + j) * bs + 17)) $lo $hi
	run_flip "top hash block" hash $((at + 2)) 0 "$blocks"
}

SALT100=$(python3 -c 'print(bytes((i * 37 + 11) & 0xff for i in range(100)).hex())')
# veritysetup format DATA HASH [OPTIONS]: the root hash.
format() {
	veritysetup format "$@" | sed -n 's/^Root hash:[[:space:]]*//p'
}

# --- (a) a superblock in a separate hash file, veritysetup's defaults.
# Sizes: small for TCG, with 2 levels or more and a last level-0 block
# that covers fewer blocks than the others.  (a): 2 MiB + 40 KiB, 522
# blocks, the last level-0 block covers 10.
A_DATA=$T/a-data.img A_HASH=$T/a-hash.img A_SIZE=$((2 * 1048576 + 40960))
random_bytes $A_SIZE 81 >"$A_DATA" || fail "cannot write $A_DATA"
A_ROOT=$(format "$A_DATA" "$A_HASH")
[ ${#A_ROOT} = 64 ] || fail "(a): veritysetup format printed root hash '$A_ROOT'"
A_DM=()
A_VUBLK=(--hash-device=@HASH@)
dm_open a "$A_DATA" "$A_HASH" "$A_ROOT" || fail "(a): veritysetup open failed"
vublk_add -t verity --format=dm-verity -f "$A_DATA" --root-hash="$A_ROOT" --hash-device="$A_HASH"
same_bytes "(a) superblock, hash file" $A_SIZE "$A_DATA"
dm_close a
vublk_del

# --- (b) no superblock, sha512, 1 KiB blocks, a 100-byte salt.  1 MiB +
# 5 KiB: 1029 blocks, 16 hashes a block, 3 levels.
B_DATA=$T/b-data.img B_HASH=$T/b-hash.img B_SIZE=$((1048576 + 5120))
B_PARAMS=(--no-superblock --hash=sha512 --data-block-size=1024 --hash-block-size=1024 --salt="$SALT100")
random_bytes $B_SIZE 82 >"$B_DATA" || fail "cannot write $B_DATA"
B_ROOT=$(format "$B_DATA" "$B_HASH" "${B_PARAMS[@]}")
[ ${#B_ROOT} = 128 ] || fail "(b): veritysetup format printed root hash '$B_ROOT'"
B_DM=("${B_PARAMS[@]}")
B_VUBLK=(--hash-device=@HASH@ "${B_PARAMS[@]}")
dm_open b "$B_DATA" "$B_HASH" "$B_ROOT" "${B_DM[@]}" || fail "(b): veritysetup open failed"
vublk_add -t verity --format=dm-verity -f "$B_DATA" --root-hash="$B_ROOT" --hash-device="$B_HASH" "${B_PARAMS[@]}"
same_bytes "(b) no superblock, sha512, 1 KiB, 100-byte salt" $B_SIZE "$B_DATA"
dm_close b
vublk_del

# --- (c) the hash area in the data file, at --hash-offset past the data.
# 2 MiB + 12 KiB: 515 blocks, the last level-0 block covers 3.
C_SIZE=$((2 * 1048576 + 12288))
C_OFF=$((C_SIZE + 8192))
C_DATA=$T/c-data.img
random_bytes $C_SIZE 83 >"$C_DATA" || fail "cannot write $C_DATA"
C_ROOT=$(format "$C_DATA" "$C_DATA" --hash-offset=$C_OFF --data-blocks=$((C_SIZE / 4096)))
[ ${#C_ROOT} = 64 ] || fail "(c): veritysetup format printed root hash '$C_ROOT'"
C_DM=(--hash-offset=$C_OFF)
C_VUBLK=(--hash-offset=$C_OFF)
dm_open c "$C_DATA" "$C_DATA" "$C_ROOT" "${C_DM[@]}" || fail "(c): veritysetup open failed"
vublk_add -t verity --format=dm-verity -f "$C_DATA" --root-hash="$C_ROOT" --hash-offset=$C_OFF
same_bytes "(c) hash area at --hash-offset=$C_OFF" $C_SIZE "$C_DATA"
dm_close c
vublk_del

# --- 2. The same byte flips fail the same blocks.
BLOCKS= damage_case a "$A_DATA" "$A_HASH" 4096 "$A_ROOT" 4096 32 A_DM A_VUBLK
BLOCKS= damage_case b "$B_DATA" "$B_HASH" 0 "$B_ROOT" 1024 64 B_DM B_VUBLK
BLOCKS=$((C_SIZE / 4096)) damage_case c "$C_DATA" "$C_DATA" $((C_OFF + 4096)) "$C_ROOT" 4096 32 C_DM C_VUBLK

# --- 3. A wrong root hash.
WRONG=${A_ROOT%?}$([ "${A_ROOT: -1}" = 0 ] && echo 1 || echo 0)
if dm_open wrong "$A_DATA" "$A_HASH" "$WRONG" 2>"$T/open.err"; then
	dm_dev=$DM
	say "wrong root hash: veritysetup open accepted it (the kernel checks at read time)"
else
	dm_dev=-
	say "wrong root hash: veritysetup open refused it: $(tail -n 1 "$T/open.err")"
fi
vublk_add -t verity --format=dm-verity -f "$A_DATA" --root-hash="$WRONG" --hash-device="$A_HASH"
n=$((A_SIZE / 4096))
scan "wrong root hash" "$dm_dev" "$DEV" 4096 $n 0 $n
[ "$dm_dev" = - ] || dm_close wrong
vublk_del

[ -z "$(ls /dev/ublkb* 2>/dev/null)" ] || fail "ublk devices left: $(ls /dev/ublkb*)"
[ -z "$(ls /dev/mapper/$DM_PREFIX-* 2>/dev/null)" ] || fail "dm devices left: $(ls /dev/mapper/$DM_PREFIX-*)"
say "PASS: dm-verity and vublk --format=dm-verity agree on bytes, on damaged blocks and on a wrong root hash"

#!/bin/bash
# `vublk-verity verify --format=dm-verity` and `dump --format=dm-verity`
# against cryptsetup's veritysetup (the oracle), on the host (veritysetup
# format and verify work on plain files, without device-mapper).
#
# Over sha256 and sha512, block size 512/1024/4096, salt of 0/32/256
# bytes, and layout (superblock in a hash file of its own, no superblock,
# hash area in the data file at --hash-offset), and a few cases of other
# algorithms, block sizes up to 512 KiB and hash type 0: veritysetup
# formats, then both tools must accept the image, and both refuse it after
# one flipped byte in a data block, in a level-0 and in the top hash
# block, and in the superblock's salt; vublk-verity with exit 1 for each.
# dump shows what veritysetup dump shows.  Then the errors: each one line,
# exit 2 (or 1 for data that does not match the root hash), never a crash.
# shellcheck source=tests/tool/lib.sh
. "$(dirname "$0")/lib.sh"

command -v veritysetup >/dev/null ||
	{ echo "SKIP: veritysetup is not installed (Debian package: cryptsetup-bin)"; exit 77; }

# Deterministic salts (AES-CTR keystream, as gen_data).
gen_data 256 77 pool
salt_of() { head -c "$1" pool | od -An -tx1 -v | tr -d ' \n'; }
# The superblock's salt field (cryptsetup's struct verity_sb).
SB_SALT=88

# root_of: the root hash veritysetup format printed (in $WORK/format).
root_of() { sed -n 's/^Root hash:[[:space:]]*//p' "$WORK/format"; }

# The test forks thousands of processes, each costly on a loaded host: the
# per-case helpers below use shell builtins where they can.

# fields FILE ARRAY: "Name: value" lines of FILE (leading blanks and the
# blanks after the colon dropped) into the associative ARRAY.
fields() {
	local -n into=$2
	local key value line
	into=()
	while IFS= read -r line; do
		[[ $line =~ ^[[:space:]]*([^:]+):[[:space:]]*(.*)$ ]] || continue
		key=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
		[ -n "${into[$key]+set}" ] || into["$key"]=$value
	done <"$1"
}

# The current case: its files, and the arguments each tool takes.
#   VS_ARGS   veritysetup verify's, after "verify"
#   VV_ARGS   vublk-verity verify's, after "verify"
#   FILES     the files to restore after each corruption
what='' VS_ARGS=() VV_ARGS=() FILES=()

# both EXPECT WHY: veritysetup verify and vublk-verity verify agree on the
# current files, and vublk-verity exits EXPECT (0 or 1).
both() {
	local vs=0 vv
	veritysetup verify "${VS_ARGS[@]}" >/dev/null 2>&1 || vs=$?
	run_capture "$VV" verify "${VV_ARGS[@]}"
	vv=$status
	[ "$vv" -lt 128 ] || fail "$what, $2: vublk-verity crashed (exit $vv): $(cat "$WORK/err")"
	if [ "$vs" = 0 ] && [ "$vv" != 0 ]; then
		fail "$what, $2: veritysetup accepts, vublk-verity exits $vv: $(head -n3 "$WORK/err")"
	elif [ "$vs" != 0 ] && [ "$vv" = 0 ]; then
		fail "$what, $2: veritysetup refuses (exit $vs), vublk-verity accepts"
	fi
	[ "$vv" = "$1" ] ||
		fail "$what, $2: vublk-verity exited $vv, expected $1: $(tail -n1 "$WORK/err")"
	[ ! -s "$WORK/out" ] || fail "$what, $2: verify printed on stdout: $(cat "$WORK/out")"
	if [ "$1" = 1 ]; then
		mapfile -t lines <"$WORK/err"
		[[ ${lines[-1]} == *"data blocks do not match the Merkle tree" ]] ||
			fail "$what, $2: no summary line: ${lines[-1]}"
	fi
	checks=$((checks + 1))
}

# flip FILE OFFSET: lib.sh's flip_byte without python (hundreds of them).
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1")
	[ -n "$b" ] || fail "flip: offset $2 is past the end of $1"
	printf -v b '\\%03o' $((b ^ 0xff))
	# shellcheck disable=SC2059 # the format is the byte
	printf "$b" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# flipped FILE OFFSET WHY: both refuse FILE with the byte at OFFSET
# flipped; the pristine files are restored afterwards.
flipped() {
	flip "$1" "$2"
	both 1 "$3"
	restore
}

restore() {
	local f
	for f in "${FILES[@]}"; do
		cp "$f.orig" "$f"
	done
}

# check_dump HASH OFFSET: dump's text agrees with veritysetup dump (the
# JSON form is checked against the text once, below: python is slow to
# start on a loaded host).
check_dump() {
	local hash=$1 off=$2 field want have
	local -A vs=() vv=()
	veritysetup dump "$hash" --hash-offset="$off" >"$WORK/vsdump" ||
		fail "$what: veritysetup dump failed"
	"$VV" dump --format=dm-verity "$hash" --hash-offset="$off" >dump.txt ||
		fail "$what: vublk-verity dump failed"
	fields "$WORK/vsdump" vs
	fields dump.txt vv
	for field in "UUID:uuid" "Hash type:hash type" "Data blocks:data blocks" \
		"Data block size:data block size" "Hash blocks:hash blocks" \
		"Hash block size:hash block size" \
		"Hash algorithm:hash algorithm" "Salt:salt"; do
		want=${vs[${field%%:*}]:-} have=${vv[${field#*:}]:-}
		[ "$want" != - ] || want='(none)'	# veritysetup's "no salt"
		if [ -z "$want" ] || [ "$want" != "$have" ]; then
			fail "$what: dump's ${field#*:} is '$have', veritysetup dump's '$want'"
		fi
	done
	[ "${vv[dm-verity superblock at offset $off]+set}" ] ||
		fail "$what: dump: superblock offset, expected $off"
	[ "${vv[tree position]}" = "$tree_off" ] ||
		fail "$what: dump: tree position ${vv[tree position]}, expected $tree_off"
	checks=$((checks + 1))
}

# one_case ALG BLOCK_SIZE SALT_BYTES LAYOUT [BLOCKS [DATA_BLOCK_SIZE
#          [HASH_TYPE]]]: the matrix' case.  BLOCK_SIZE is the hash blocks'
# (and the data blocks' unless given).  LAYOUT: sb (hash file with a
# superblock), nosb, indata (superblock at --hash-offset in the data
# file).  Default BLOCKS: two levels, three level-0 blocks.  HASH_TYPE:
# 1, or 0 (veritysetup's --format=0, vublk-verity's --hash-type=0).
one_case() {
	local alg=$1 bs=$2 salt_bytes=$3 layout=$4 blocks=${5:-} dbs=${6:-$2}
	local type=${7:-1}
	local stride per salt=- tree_off hash_off=0 sb_off=-1 params hashfile root
	# The hashes a block holds: a power of 2 (hash type 1 gives each a
	# power-of-2 room, type 0 packs the same number).
	case $alg in
	md4|md5|shake128) stride=16 ;;
	sha256|sha1|shake256) stride=32 ;;
	*) stride=64 ;;
	esac
	per=$((bs / stride))
	[ -n "$blocks" ] || blocks=$((2 * per + 3))
	((salt_bytes)) && salt=$(salt_of "$salt_bytes")
	what="$alg bs=$bs data-bs=$dbs salt=${salt_bytes}B $layout blocks=$blocks type=$type"
	params=(--hash="$alg" --data-block-size="$dbs" --hash-block-size="$bs"
		--salt="$salt")
	rm -f data hash ./*.orig
	gen_data $((blocks * dbs)) $((dbs + salt_bytes)) data
	case $layout in
	sb)
		veritysetup format data hash "${params[@]}" --format="$type" \
			>"$WORK/format"
		root=$(root_of)
		VS_ARGS=(data hash "$root")
		VV_ARGS=(--format=dm-verity data --hash-device=hash
			 --root-hash="$root")
		hashfile=hash sb_off=0 FILES=(data hash)
		tree_off=$(( (512 + bs - 1) / bs * bs )) ;;
	nosb)
		veritysetup format data hash --no-superblock "${params[@]}" \
			--format="$type" >"$WORK/format"
		root=$(root_of)
		VS_ARGS=(data hash "$root" --no-superblock "${params[@]}"
			 --format="$type")
		VV_ARGS=(--format=dm-verity data --hash-device=hash
			 --root-hash="$root" --no-superblock "${params[@]}"
			 --hash-type="$type")
		hashfile=hash FILES=(data hash)
		tree_off=0 ;;
	indata)
		# The hash area 4 KiB past the data (a multiple of 512).
		hash_off=$((blocks * dbs + 4096))
		veritysetup format data data --hash-offset=$hash_off \
			--data-blocks="$blocks" "${params[@]}" --format="$type" \
			>"$WORK/format"
		root=$(root_of)
		VS_ARGS=(data data "$root" --hash-offset="$hash_off")
		VV_ARGS=(--format=dm-verity data --hash-offset="$hash_off"
			 --root-hash="$root")
		hashfile=data sb_off=$hash_off FILES=(data)
		tree_off=$(( (hash_off + 512 + bs - 1) / bs * bs )) ;;
	esac
	[ -n "$root" ] || fail "$what: veritysetup format printed no root hash"
	for f in "${FILES[@]}"; do cp "$f" "$f.orig"; done

	both 0 "as formatted"
	flipped data $(((blocks / 2) * dbs + 7)) "a data byte"
	# The top level is stored first: one block at tree_off, then (two
	# levels) level 0.
	flipped "$hashfile" $((tree_off + bs + 3)) "a level-0 hash byte"
	flipped "$hashfile" $((tree_off + 5)) "a top-level hash byte"
	if [ "$sb_off" -ge 0 ]; then
		((salt_bytes)) &&
			flipped "$hashfile" $((sb_off + SB_SALT + salt_bytes - 1)) \
				"the superblock's salt"
		check_dump "$hashfile" "$sb_off"
	fi
	return 0
}

# VUBLK_ORACLE_STRIDE=N runs every Nth case of the matrix below (tests/run's
# sanitizer pass: agreement with veritysetup does not depend on the build,
# and the whole matrix ran in build/); the cases after it always run.
case_no=0
sampled() { ((case_no++ % ${VUBLK_ORACLE_STRIDE:-1} == 0)); }

checks=0
for alg in sha256 sha512; do
	for bs in 512 1024 4096; do
		for salt_bytes in 0 32 256; do
			for layout in sb nosb indata; do
				sampled || continue
				one_case $alg $bs $salt_bytes $layout
			done
		done
	done
done
# dm-verity's other algorithms (a SHA-1 hash in a 32-byte stride, SHA-384
# in 64) and data blocks of another size than the hash blocks.
for layout in sb nosb indata; do
	one_case sha1 1024 32 $layout "" 4096
	one_case sha384 4096 32 $layout "" 512
	one_case sha256 512 0 $layout "" 65536
done
# What veritysetup alone formats: Whirlpool (OpenSSL's legacy provider),
# a 16-byte XOF, a 36-byte digest in a 64-byte stride.
one_case whirlpool 1024 32 sb
one_case shake128 1024 32 nosb
one_case md5-sha1 1024 7 indata "" 4096
# Three levels (8 hashes per 512-byte block: 9 level-0 blocks, 2 level-1
# blocks, the top), where the case's "level-0" byte is in level 1.
one_case sha512 512 7 sb 65
flipped hash $((512 + 3 * 512 + 3)) "a level-0 hash byte of three levels"
# Blocks up to veritysetup's 512 KiB: 128 KiB hash blocks of 2048 hashes
# over 512-byte data blocks (two levels), and 512 KiB data blocks under
# 512-byte sha512 hash blocks (9 data blocks: two levels).
one_case sha512 131072 32 sb "" 512
one_case sha512 512 7 indata 9 524288
# Hash type 0 (Chrome OS's): the salt hashed after the block, SHA-1's
# hashes packed in 20 bytes each (type 1 pads them to 32).
for layout in sb nosb indata; do
	one_case sha1 4096 32 $layout "" "" 0
done
echo "dmverity: veritysetup and vublk-verity agree in $checks cases"

# ---- what goes wrong: one line, exit 2 (1 for a mismatch), no crash ----
# bad STATUS PATTERN ARGS...: vublk-verity ARGS fails with one line.
bad() { expect_error "$@"; }

one_case sha256 1024 32 sb
ROOT=$(root_of)
DMV=(--format=dm-verity data --hash-device=hash)

# A wrong root hash: every block fails, and one line says why.
bad_root=$(printf '%s' "$ROOT" | tr '0-9a-f' '1-9a-f0')
run_capture "$VV" verify "${DMV[@]}" --root-hash="$bad_root"
[ "$status" = 1 ] || fail "wrong root hash: exit $status"
grep -q "^data: data block 0 (offset 0) does not match the Merkle tree$" "$WORK/err" ||
	fail "wrong root hash: block 0 not named"
grep -q "'data': the root hash $bad_root does not match the Merkle tree, whose top block hashes to $ROOT" \
	"$WORK/err" || fail "wrong root hash: no line saying so: $(cat "$WORK/err")"
veritysetup verify data hash "$bad_root" >/dev/null 2>&1 &&
	fail "veritysetup accepts the wrong root hash"
# A superblock that says fewer data blocks than the tree was made for:
# the root hash still matches and every block verifies, but the hash of
# the block left out sits where the last level-0 block should have zeroes.
# veritysetup verify refuses that ("Spare area is not zeroed"): so must
# vublk-verity, with one line (exit 1).
printf '\102\0\0\0\0\0\0\0' | dd of=hash bs=1 seek=72 conv=notrunc status=none	# 66
veritysetup verify data hash "$ROOT" >/dev/null 2>&1 &&
	fail "veritysetup accepts a superblock of 66 data blocks for 67"
bad 1 "'hash': the spare hash slots of level 0 at offset 4160 are not zero \(as veritysetup verify says\): the tree was made for more than the superblock's 66 data blocks" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT"
restore

# dump --json: the same fields as the text (checked against veritysetup
# dump above), the levels where the tree is.
"$VV" dump --format=dm-verity hash --json >dump.json
"$VV" dump --format=dm-verity hash >dump.txt
"$PYTHON" - dump.json dump.txt <<'EOF' || fail "dump --json disagrees with the text dump"
import json, sys
d = json.load(open(sys.argv[1]))
text = {}
for line in open(sys.argv[2]):
    if line.startswith("  ") and ":" in line:
        k, v = line.strip().split(":", 1)
        text.setdefault(k, v.strip())
sb = d["superblock"]
for key in ("uuid", "hash_type", "data_blocks", "data_block_size",
            "hash_blocks", "hash_block_size", "hash_algorithm", "salt"):
    if str(sb[key]) != text[key.replace("_", " ")]:
        sys.exit(f"{key}: json {sb[key]!r}, text {text[key.replace('_', ' ')]!r}")
assert d["hash_device"] == "hash" and sb["offset"] == 0 and sb["version"] == 1
loc, t = d["location"], d["tree"]
assert loc["tree_pos"] == 1024 and loc["tree_size"] == 4096, loc
assert t["num_levels"] == 2 and t["data_blocks"] == 67, t
assert [l["offset"] for l in t["levels"]] == [2048, 1024], t["levels"]
assert sb["hash_blocks"] == 4 and loc["hash_device_size"] >= 5120
EOF
# -v: every block, and the statistics on stdout; quiet when good.
run_capture "$VV" verify "${DMV[@]}" --root-hash="$ROOT" -v
{ [ "$status" = 0 ] && grep -q "^data: 67 data blocks verified, 0 failed" "$WORK/out"; } ||
	fail "verify -v: exit $status, $(cat "$WORK/out" "$WORK/err")"


bad 2 "invalid --root-hash: 64 bytes, but sha256 root hashes have 32 \(64 hex digits\)" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT$ROOT"
bad 2 "invalid --root-hash: 31 bytes, but sha256 root hashes have 32" \
	"$VV" verify "${DMV[@]}" --root-hash="${ROOT:2}"
bad 2 "invalid --root-hash 'xyz': odd number of hex digits" \
	"$VV" verify "${DMV[@]}" --root-hash=xyz
bad 2 "invalid --root-hash '': not the length of a digest" \
	"$VV" verify "${DMV[@]}" --root-hash=
bad 2 "invalid --root-hash '.*': not the length of a digest" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT$ROOT$ROOT"
bad 2 "--format=dm-verity needs --root-hash" "$VV" verify "${DMV[@]}"
bad 2 "without --hash-device the hash area is in the data file: give its --hash-offset" \
	"$VV" verify --format=dm-verity data --root-hash="$ROOT"
bad 2 "invalid --hash-offset '100': dm-verity hash offset is not a multiple of 512 bytes" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --hash-offset=100
bad 2 "--hash-offset 1048576 is past the end of 'hash' \([0-9]+ bytes\)" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --hash-offset=1M
bad 2 "'hash': no dm-verity superblock \(\"verity\" signature\) at the hash offset \(superblock at offset 1024\)" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --hash-offset=1024
bad 2 "invalid --format 'ext4': use fs-verity or dm-verity" \
	"$VV" verify --format=ext4 data
bad 2 "--format given twice" "$VV" verify --format=dm-verity "${DMV[@]}"
bad 2 "--hash is given by the dm-verity superblock: give it only with --no-superblock" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --hash=sha256
bad 2 "--salt is given by the dm-verity superblock" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --salt=-
bad 2 "--hash-device is for dm-verity images: give --format=dm-verity too" \
	"$VV" verify data --hash-device=hash
bad 2 "--root-hash is for dm-verity images" "$VV" verify data --root-hash="$ROOT"
bad 2 "--digest is for fs-verity images: a dm-verity image is trusted through --root-hash" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --digest="sha256:$ROOT"
bad 2 "--require-signature is for fs-verity images" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --require-signature
bad 2 "invalid --data-block-size '3': must be a power of 2 from 512 to 524288" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --no-superblock --data-block-size=3
bad 2 "invalid --hash-block-size '1048576': must be a power of 2 from 512 to 524288" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --no-superblock --hash-block-size=1048576
bad 2 "invalid --hash 'streebog512': dm-verity hash algorithm not served" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --no-superblock --hash=streebog512
bad 2 "invalid --hash-type '2': 1 \(veritysetup's default\) or 0" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --no-superblock --hash-type=2
bad 2 "--hash-type is given by the dm-verity superblock" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --hash-type=1
bad 2 "invalid --data-blocks '0': expected a number of blocks from 1" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --no-superblock --data-blocks=0
bad 2 "invalid --salt '.*': 257 bytes, at most 256 allowed" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --no-superblock --salt="$(salt_of 256)ab"
bad 2 "invalid --salt 'x': odd number of hex digits" \
	"$VV" verify "${DMV[@]}" --root-hash="$ROOT" --no-superblock --salt=x
bad 2 "expected exactly one DATA, 0 given" \
	"$VV" verify --format=dm-verity --hash-device=hash --root-hash="$ROOT"
bad 2 "can't open 'nonexistent' for reading" \
	"$VV" verify --format=dm-verity nonexistent --hash-device=hash --root-hash="$ROOT"
bad 2 "can't open 'nonexistent' for reading" \
	"$VV" verify --format=dm-verity data --hash-device=nonexistent --root-hash="$ROOT"
mkdir -p dir
bad 2 "'dir' is neither a regular file nor a block device" \
	"$VV" verify --format=dm-verity dir --hash-device=hash --root-hash="$ROOT"

# Truncated files; veritysetup refuses them too.
cut_and_check() {	# FILE SIZE PATTERN
	truncate -s "$2" "$1"
	bad 2 "$3" "$VV" verify "${DMV[@]}" --root-hash="$ROOT"
	veritysetup verify data hash "$ROOT" >/dev/null 2>&1 &&
		fail "veritysetup accepts $1 cut to $2 bytes"
	restore
}
cut_and_check hash 3000 "'hash' \(3000 bytes\) is too small for the dm-verity tree of 4096 bytes at offset 1024: truncated, or not that hash device"
cut_and_check hash 300 "'hash' ends 300 bytes into the dm-verity superblock at offset 0"
cut_and_check hash 0 "--hash-offset 0 is past the end of 'hash' \(0 bytes\)"
cut_and_check data 10000 "'data' \(10000 bytes\) is smaller than its 67 dm-verity data blocks of 1024 bytes"
# With --no-superblock the data blocks default to all of DATA: a hash
# area in DATA then overlaps them.
bad 2 "'data': dm-verity data blocks and hash area overlap" \
	"$VV" verify --format=dm-verity data --hash-offset=4096 --no-superblock \
	--root-hash="$ROOT"

# dump: only a superblock has something to show.
bad 2 "--no-superblock: there is no superblock to dump" \
	"$VV" dump --format=dm-verity hash --no-superblock
bad 2 "'data': no dm-verity superblock \(\"verity\" signature\) at the hash offset \(superblock at offset 0\)" \
	"$VV" dump --format=dm-verity data
bad 2 "--hash-offset 65536 is past the end of 'hash'" \
	"$VV" dump --format=dm-verity hash --hash-offset=65536
bad 2 "--hash-offset is for dm-verity images: give --format=dm-verity too" \
	"$VV" dump hash --hash-offset=0
bad 2 "unknown option '--root-hash=.*'" \
	"$VV" dump --format=dm-verity hash --root-hash="$ROOT"
bad 2 "expected exactly one HASH device, 2 given" \
	"$VV" dump --format=dm-verity hash hash
echo "dmverity: every error is one line"

#!/bin/bash
# `vublk-verity format` then `verify`: the printed digest is fsverity's
# digest of the original data, the data bytes are untouched, the tree and
# descriptor in the image are exactly fsverity-utils' --out-merkle-tree
# and --out-descriptor at the f2fs positions, and verify accepts the
# image (and --digest only with the right digest).
# shellcheck source=tests/tool/lib.sh
. "$(dirname "$0")/lib.sh"

SIZE=$((5 * 1048576 + 123))
gen_data $SIZE 7 orig

# check_image IMAGE DATA OPTION...: IMAGE was formatted over the bytes of
# DATA with OPTIONs; compare everything with fsverity's view of DATA.
check_image() {
	local img=$1 data=$2 size tree_pos desc_pos tree_size image_size
	shift 2
	size=$(stat -c %s "$data")
	fsverity digest "$data" "$@" --out-merkle-tree=fs.tree \
		--out-descriptor=fs.desc >fs.line
	cmp -n "$size" "$img" "$data" || fail "$img: data bytes changed"
	"$VV" dump --json "$img" >dump.json
	read -r tree_pos tree_size desc_pos < <(json_fields dump.json \
		location.tree_pos location.tree_size location.desc_pos)
	image_size=$(stat -c %s "$img")
	# The f2fs layout (fs/f2fs/verity.c): tree at round_up(size, 64K).
	[ "$tree_pos" = $(((size + 65535) / 65536 * 65536)) ] ||
		fail "$img: tree at $tree_pos for data size $size"
	[ "$tree_size" = "$(stat -c %s fs.tree)" ] ||
		fail "$img: tree size $tree_size, fsverity's is $(stat -c %s fs.tree)"
	[ "$desc_pos" = $((tree_pos + tree_size)) ] ||
		fail "$img: descriptor at $desc_pos, not after the tree"
	[ $((image_size % 4096)) = 0 ] || fail "$img: size $image_size"
	tail -c +$((tree_pos + 1)) "$img" | head -c "$tree_size" | cmp - fs.tree ||
		fail "$img: stored tree differs from fsverity's"
	tail -c +$((desc_pos + 1)) "$img" | head -c 256 | cmp - fs.desc ||
		fail "$img: stored descriptor differs from fsverity's"
	"$VV" verify "$img" >verify.line || fail "$img: verify failed"
	[ "$(digest_hex verify.line)" = "$(digest_hex fs.line)" ] ||
		fail "$img: verify printed $(cat verify.line), fsverity says $(cat fs.line)"
}

# format_fresh IMAGE DATA OPTION...: copy DATA to IMAGE, format it with
# OPTIONs and check the printed line.
format_fresh() {
	local img=$1 data=$2
	shift 2
	cp "$data" "$img"
	"$VV" format "$img" "$@" >fmt.line
	[ "$(cat fmt.line)" = "$(fsverity digest "$data" "$@" | sed "s| $data\$| $img|")" ] ||
		fail "format $img $*: printed '$(cat fmt.line)'"
}

# Defaults, then other parameters, then an empty and a one-block image.
format_fresh img orig
check_image img orig
format_fresh img2 orig --hash-alg=sha512 --block-size=1024 --salt=0011223344
check_image img2 orig --hash-alg=sha512 --block-size=1024 --salt=0011223344
format_fresh img3 orig --block-size=65536
check_image img3 orig --block-size=65536
: >empty
format_fresh img4 empty
check_image img4 empty
gen_data 4096 8 oneblock
format_fresh img5 oneblock
check_image img5 oneblock

# The thread count changes nothing in the image.
cp orig j1 && "$VV" format -j 1 j1 >/dev/null
cp orig j2 && "$VV" format -j 2 j2 >/dev/null
cmp j1 j2 || fail "-j 1 and -j 2 images differ"

# --data-size: only the first N bytes are data.
head -c 1048576 orig >first1m
cp orig part && "$VV" format part --data-size=1M >/dev/null
check_image part first1m

# --digest: the right one passes, a wrong one or another algorithm fails.
right=$(fsverity digest orig | cut -d' ' -f1)
"$VV" verify img --digest="$right" >/dev/null || fail "verify --digest=$right"
wrong=sha256:$(printf '%064x' 1)
expect_error 1 "img': file digest $right does not match the expected $wrong" \
	"$VV" verify img --digest="$wrong"
expect_error 1 "does not match the expected sha512:" \
	"$VV" verify img --digest=sha512:"$(printf '%0128x' 0)"

# --force: replace the metadata, keeping the recorded data size unless
# --data-size says otherwise.
"$VV" format --force img --hash-alg=sha512 >/dev/null
check_image img orig --hash-alg=sha512
"$VV" format --force img --data-size=4097 >/dev/null 2>"$WORK/warn" ||
	fail "format --data-size=4097 failed"
grep -q "^vublk-verity format: warning: 'img': its 4097 bytes of data are not a positive multiple of 512: vublk add will not serve it" "$WORK/warn" ||
	fail "format of 4097 bytes: no warning that a device cannot serve it: $(cat "$WORK/warn")"
head -c 4097 orig >first4097
check_image img first4097
# A damaged old trailer is replaced when --data-size says where data ends.
cp img5 damaged && flip_byte damaged $(($(stat -c %s damaged) - 10))
"$VV" format --force --data-size=4096 damaged >/dev/null
check_image damaged oneblock

# A sealed image cut short (a copy stopped early) lost its trailer but
# kept its descriptor: verify says so, and format will not seal the old
# tree as data: with --force it takes the data size the descriptor gives,
# and refuses a larger --data-size.
format_fresh cut orig
truncate -s $(($(stat -c %s cut) - 100)) cut
cp cut cut.before
expect_error 1 "'cut' has invalid vublk metadata: no trailer at its end, but an fs-verity descriptor where a sealed image keeps it: the image was cut short or its trailer damaged" \
	"$VV" verify cut
expect_error 1 "'cut' is a sealed image that lost its trailer \\(cut short or damaged\\): restore it whole, or give --force to seal its $SIZE bytes of data again" \
	"$VV" format cut
expect_error 1 "--data-size $((SIZE + 1)) is larger than the data size $SIZE recorded in 'cut'" \
	"$VV" format --force --data-size=$((SIZE + 1)) cut
cmp cut cut.before || fail "a refused format changed the cut image"
"$VV" format --force cut >/dev/null || fail "format --force of a cut image failed"
check_image cut orig
# A descriptor elsewhere than after its own tree is only data.
fsverity digest orig --out-descriptor=orig.desc >/dev/null
{ head -c 1048576 orig; cat orig.desc; } >notcut
expect_error 1 "'notcut' is not a vublk image: trailer magic not found" \
	"$VV" verify notcut

# A format that fails or is stopped halfway leaves the data alone, as
# before it (f2fs truncates a file whose enabling failed): a second
# format then seals the same data, not the partial tree after it.
# ulimit -f (1 KiB units) lets prepare reach the tree and stops the tree:
# first as SIGXFSZ ends the command, then as EFBIG when it is ignored.
cp orig limited
tree_pos=$(((SIZE + 65535) / 65536 * 65536))
rc=0
(ulimit -f $((tree_pos / 1024 + 1)); exec "$VV" format limited) 2>/dev/null || rc=$?
[ $rc -gt 128 ] || fail "format past ulimit -f exited $rc, not ended by SIGXFSZ"
cmp limited orig || fail "a format ended by SIGXFSZ left the image changed"
rc=0
(trap '' XFSZ; ulimit -f $((tree_pos / 1024 + 1))
 exec "$VV" format limited) 2>err.limited || rc=$?
[ $rc = 1 ] && grep -q "can't build the Merkle tree of 'limited': File too large" err.limited ||
	fail "format past ulimit -f (EFBIG) exited $rc: $(cat err.limited)"
cmp limited orig || fail "a format that failed left the image changed"
"$VV" format limited >/dev/null || fail "format after a failed one failed"
check_image limited orig
# kill halfway through a larger image (4 GiB of hole: seconds to write
# its tree).  SIGTERM: a script's background job ignores SIGINT.
truncate -s 4G stopped
"$VV" format stopped >/dev/null &
pid=$!
# Killed once prepare has grown the file past its data (the handlers are
# in place from then on), before the tree is done if it can be caught.
while kill -0 $pid 2>/dev/null && [ "$(stat -c %s stopped)" -le 4294967296 ]; do
	sleep 0.01
done
kill -TERM $pid 2>/dev/null
rc=0
wait $pid || rc=$?
if [ $rc = 0 ]; then
	echo "format/verify: format finished before the kill; the rollback was not exercised"
else
	[ $rc = 143 ] || fail "format stopped by SIGTERM exited $rc"
	[ "$(stat -c %s stopped)" = 4294967296 ] ||
		fail "format stopped by SIGTERM left $(stat -c %s stopped) bytes, not the 4 GiB of data"
	"$VV" format stopped >/dev/null || fail "format after a stopped one failed"
fi
rm -f stopped

echo "format/verify: images agree with fsverity digest"

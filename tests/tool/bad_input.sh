#!/bin/bash
# Bad input to every subcommand: a non-zero exit (2 for command-line
# mistakes, 1 for bad files), nothing on stdout, ONE line on stderr that
# names the value or file and the reason, and no file changed or created.
# shellcheck source=tests/tool/lib.sh
. "$(dirname "$0")/lib.sh"

gen_data 100000 3 data
cp data image
"$VV" format image >/dev/null
cp data plain
mkdir dir
mkfifo fifo	# no one writes to it: an open(2) that waits for a writer hangs
LONG_SALT=$(printf 'ab%.0s' $(seq 33))

# The test's files and their contents (not the captured output).
checksums() {
	sha256sum data image plain
	echo *
}
checksums >"$WORK/before"

# bad STATUS PATTERN ARGS...: vublk-verity ARGS must fail that way.
bad() {
	expect_error "$@"
	checksums >"$WORK/after"
	cmp -s "$WORK/before" "$WORK/after" ||
		fail "'${*:3}' changed or created files: $(diff "$WORK/before" "$WORK/after")"
}

# The command line itself.
bad 2 "no command given" "$VV"
bad 2 "unknown command 'frobnicate'" "$VV" frobnicate
bad 2 "no such command: 'frobnicate'" "$VV" help frobnicate
bad 2 "unknown option '--bogus'" "$VV" digest --bogus data
bad 2 "unknown option '-x'" "$VV" verify -x image
bad 2 "missing value for option '--salt'" "$VV" digest data --salt
# The argument named is the one refused, wherever it stands.
bad 2 "unknown option '-x' in '-vx'" "$VV" verify image -vx
bad 2 "unknown option '-x' in '-xv'" "$VV" verify image -xv
bad 2 "option '--json' takes no value: '--json=1'" "$VV" dump image --json=1
bad 2 "no FILE given" "$VV" digest
bad 2 "expected exactly one IMAGE, 2 given" "$VV" format image plain
bad 2 "expected exactly one IMAGE, 0 given" "$VV" verify
bad 2 "expected exactly one IMAGE, 2 given" "$VV" dump image image

# Tree parameters (digest and format share the parser).
for cmd in digest format; do
	target=data
	[ $cmd = format ] && target=plain
	bad 2 "invalid --salt 'zz': not a hex string" "$VV" $cmd $target --salt=zz
	bad 2 "invalid --salt 'abc': odd number of hex digits" "$VV" $cmd $target --salt=abc
	bad 2 "invalid --salt '$LONG_SALT': 33 bytes, at most 32" "$VV" $cmd $target --salt="$LONG_SALT"
	bad 2 "--salt given twice" "$VV" $cmd $target --salt=00 --salt=00
	bad 2 "-j/--jobs given twice" "$VV" $cmd $target -j 1 --jobs=2
	for bs in 3000 512 131072 abc -4096 "" 4096x; do
		bad 2 "invalid --block-size '$bs': must be a power of 2 from 1024 to 65536" \
			"$VV" $cmd $target --block-size="$bs"
	done
	bad 2 "unknown hash algorithm 'md5'" "$VV" $cmd $target --hash-alg=md5
	bad 2 "unknown hash algorithm '3'" "$VV" $cmd $target --hash-alg=3
	bad 2 "invalid --jobs '0'" "$VV" $cmd $target -j 0
	bad 2 "invalid --jobs 'many'" "$VV" $cmd $target --jobs=many
	bad 1 "can't open 'missing' for .*: No such file or directory" "$VV" $cmd missing
	bad 1 "'dir'.*(Is a directory|is not a regular file)" "$VV" $cmd dir
done

# digest: the --out-* files describe one file.
bad 2 "--out-merkle-tree and --out-descriptor take exactly one FILE, 2 given" \
	"$VV" digest data plain --out-merkle-tree=tree
bad 2 "--out-descriptor given twice" "$VV" digest data --out-descriptor=a --out-descriptor=b

# digest and sign: an output that is an input would destroy it.
bad 1 "--out-descriptor 'data' is the same file as the input 'data'" \
	"$VV" digest data --out-descriptor=data
bad 1 "--out-merkle-tree './data' is the same file as the input 'data'" \
	"$VV" digest data --out-merkle-tree=./data
bad 1 "--out-descriptor 'tree' is the same file as --out-merkle-tree 'tree'" \
	"$VV" digest data --out-merkle-tree=tree --out-descriptor=tree
bad 1 "--out 'image' is the same file as the image 'image'" \
	"$VV" sign image --key=key.pem --out=image
bad 1 "--out 'plain' is the same file as --key 'plain'" \
	"$VV" sign image --key=plain --out=plain

# A FIFO for a file: refused at once, not waited on.
for cmd in digest verify dump "f2fs list"; do
	# shellcheck disable=SC2086 # "f2fs list" is two words
	bad "$([ "$cmd" = digest ] && echo 1 || echo 2)" \
		"'fifo'.*(not a regular file|neither a regular file nor a block device)" \
		timeout 10 "$VV" $cmd fifo
done
bad 2 "invalid --trusted-cert 'fifo'" timeout 10 "$VV" verify image --trusted-cert=fifo

# format: sizes, and images that already have metadata.
for size in abc -1 1.5 1X 18446744073709551616 20000000T ""; do
	bad 2 "invalid --data-size '$size': expected a number of bytes" \
		"$VV" format plain --data-size="$size"
done
bad 2 "invalid --data-size '0': no data would be left to protect" \
	"$VV" format plain --data-size=0
bad 1 "--data-size 100001 is larger than 'plain' \(100000 bytes\)" \
	"$VV" format plain --data-size=100001
bad 1 "--data-size 1048576 is larger than 'plain'" "$VV" format plain --data-size=1M
bad 1 "'image' already has vublk metadata: use --force" "$VV" format image
bad 1 "--data-size 100001 is larger than the data size 100000 recorded in 'image'" \
	"$VV" format image --force --data-size=100001

# verify and dump: images without, or with foreign, metadata.
for cmd in verify dump; do
	bad 2 "can't open 'missing' for reading: No such file or directory" "$VV" $cmd missing
	bad 2 "can't read the vublk metadata of 'dir': .*neither a regular file nor a block device" \
		"$VV" $cmd dir
	bad 1 "'plain' is not a vublk image: trailer magic not found" "$VV" $cmd plain
done
: >empty
checksums >"$WORK/before"
bad 1 "'empty' is not a vublk image: image too small" "$VV" verify empty
rm empty
# A trailer pointing past the end of the image (truncated image).
head -c $(($(stat -c %s image) - 4096)) image >truncated
tail -c 64 image >>truncated
checksums >"$WORK/before"
bad 1 "'truncated' has invalid vublk metadata: .*past the end of the image" \
	"$VV" verify truncated

# verify --digest forms.
for d in sha256 md5:00 sha256:abc sha256:00 sha256:zz sha512:"$(printf '%064x' 0)"; do
	bad 2 "invalid --digest '[^']+'|unknown hash algorithm 'md5'" \
		"$VV" verify image --digest="$d"
done

# --help, help and --version are not errors.
"$VV" --help | grep -q "vublk-verity verify" || fail "--help"
"$VV" help format | grep -q -- "--data-size" || fail "help format"
"$VV" dump --help | grep -q -- "--json" || fail "dump --help"
"$VV" --version | grep -qE "^vublk-verity [0-9]+\.[0-9]+" || fail "--version"
echo "bad input: every case refused with one line, nothing changed"

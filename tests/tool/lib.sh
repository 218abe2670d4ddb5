# shellcheck shell=bash
# tests/tool/lib.sh - helpers for the vublk-verity tests; sourced by each
# test script, which gets the built vublk-verity as its first argument
# from tests/tool/meson.build.
#
# Data is pseudo-random but deterministic (AES-CTR keyed by a seed), so a
# failure reproduces byte for byte.

set -eu

# shellcheck disable=SC2034 # used by the scripts that source this file
VV=$(realpath "$1")
command -v fsverity >/dev/null || { echo "fsverity (the oracle) is not installed" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vublk-verity-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM	# a meson timeout still cleans up
# The test's files live in files/; captured output next to it, in $WORK.
mkdir "$WORK/files"
cd "$WORK/files"

# Debian's python3 starts in 0.1 s; a pyenv shim earlier in PATH can take
# seconds, which adds up over hundreds of calls.
PYTHON=$(command -v /usr/bin/python3 || command -v python3)

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# gen_data SIZE SEED FILE
gen_data() {
	openssl enc -aes-128-ctr -nosalt -K "$(printf '%032x' "$2")" \
		-iv 00000000000000000000000000000000 </dev/zero 2>/dev/null |
		head -c "$1" >"$3"
}

# flip_byte FILE OFFSET: invert one byte in place.
flip_byte() {
	"$PYTHON" - "$1" "$2" <<'EOF'
import sys
off = int(sys.argv[2])
with open(sys.argv[1], "r+b") as f:
    f.seek(off)
    b = f.read(1)
    assert len(b) == 1, "offset past the end"
    f.seek(off)
    f.write(bytes([b[0] ^ 0xff]))
EOF
}

# json_fields FILE PATH...: print fields of a JSON document on one line,
# space-separated; a PATH is dot-separated keys and list indexes, e.g.
# json_fields dump.json location.tree_pos tree.levels.0.offset
json_fields() {
	"$PYTHON" - "$@" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
out = []
for path in sys.argv[2:]:
    v = doc
    for k in path.split("."):
        v = v[int(k)] if isinstance(v, list) else v[k]
    out.append(str(v))
print(" ".join(out))
EOF
}

# run_capture CMD...: run, leaving stdout in $WORK/out, stderr in $WORK/err
# and the exit status in $status; never fails itself.
status=0
run_capture() {
	status=0
	"$@" >"$WORK/out" 2>"$WORK/err" || status=$?
}

# expect_error STATUS PATTERN CMD...: CMD must exit with STATUS, print
# nothing on stdout and exactly one line on stderr matching PATTERN
# (grep -E).
expect_error() {
	local want=$1 pattern=$2 lines
	shift 2
	run_capture "$@"
	# Builtins only: this runs hundreds of times, and forks are slow.
	mapfile -t lines <"$WORK/err"
	[ "$status" = "$want" ] ||
		fail "'$*' exited $status, expected $want; stderr: ${lines[*]}"
	[ ! -s "$WORK/out" ] || fail "'$*' printed on stdout: $(cat "$WORK/out")"
	[ "${#lines[@]}" = 1 ] ||
		fail "'$*' printed ${#lines[@]} lines on stderr, expected 1: ${lines[*]}"
	[[ ${lines[0]} =~ $pattern ]] ||
		fail "'$*' error line does not match '$pattern': ${lines[0]}"
}

# The hex of a `fsverity digest` style line "ALG:HEX NAME".
digest_hex() {
	sed -E 's/^[a-z0-9]+:([0-9a-f]+) .*/\1/' "$@"
}

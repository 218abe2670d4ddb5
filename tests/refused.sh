# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the CLI refusal tests (tests/pmem-target/refusals.sh,
# tests/nbd/refusals.sh): refused PATTERN ADD-ARGS... runs
# `$VUBLK add ADD-ARGS...`, which must fail with ONE stderr line matching
# PATTERN (an extended regex), print nothing on stdout, and leave no state
# file in $VUBLK_RUN_DIR.  Needs VUBLK, T (a scratch directory) and
# VUBLK_RUN_DIR; sets failed=1 on a failure.
fail() { echo "FAIL: $*" >&2; failed=1; }

refused() {
	local pattern=$1 rc lines
	shift
	"$VUBLK" add "$@" >"$T/out" 2>"$T/err"
	rc=$?
	lines=$(wc -l <"$T/err")
	[ $rc -ne 0 ] || fail "add $* succeeded"
	[ "$lines" -eq 1 ] || fail "add $*: $lines stderr lines, want 1: $(cat "$T/err")"
	grep -Eq -- "$pattern" "$T/err" ||
		fail "add $*: '$(cat "$T/err")' does not match /$pattern/"
	[ ! -s "$T/out" ] || fail "add $* printed a device: $(cat "$T/out")"
	if ls "$VUBLK_RUN_DIR"/*.json >/dev/null 2>&1; then
		fail "add $* left state: $(ls "$VUBLK_RUN_DIR")"
	fi
	echo "ok: $*: $(cat "$T/err")"
}

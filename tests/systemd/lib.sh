# SPDX-License-Identifier: GPL-2.0-only
# Shared by the tests of systemd/ (sourced, not run): reading the units
# vublk-generator writes as systemd reads them.

# unit_exec_words FILE: the words of FILE's ExecStart= line, one per
# line, as systemd passes them to the program: split at blanks (the line
# holds no quote or backslash, which vublktab fields may not), then
# specifiers and variables undone: %% -> %, $$ -> $.  Fails if the line
# is missing or holds a quote or backslash.
unit_exec_words() {
	local - line w
	set -f
	line=$(sed -n 's/^ExecStart=//p' "$1")
	case $line in '' | *[\"\'\\]*) return 1 ;; esac
	for w in $line; do
		w=${w//%%/%}
		printf '%s\n' "${w//\$\$/\$}"
	done
}

# SPDX-License-Identifier: GPL-2.0-only
# bash completion for vublk(8), vublk-verity(1) and vublk-bench(1).
#
# Installed as .../bash-completion/completions/vublk, with vublk-verity and
# vublk-bench linked to it, so bash-completion loads it on first use; it
# also works sourced on its own (it needs nothing from bash-completion).
#
# Subcommands and options are read from the programs' own help when
# completing (a few milliseconds), so that a new option completes without
# an edit here.  The help is read with the rules the man-page test uses
# (tests/install/check_man.py): a synopsis line (one with the program's
# name as a word, and the lines after it that begin with "[") gives all
# the options on it; a definition line (indented, beginning with an
# option) gives the options before its first two spaces.  The same test
# checks what this script offers against the man pages.
#
# Device ids (-n) come from the run directory's state files and the
# kernel's ublk character devices, which anyone may read.

# _vublk_help_scan PROG SUB: read a help text on stdin; print what it
# says of PROG's subcommand SUB (SUB empty: of everything), one item a
# line:
#   cmd WORD       a subcommand: "PROG WORD" on a synopsis line
#   opt OPTION     an option, "--name=" when its value follows a "="
#   arg OPTION     an option whose value is the next word ("-n ID")
#   val OPTION V   a value the help lists for OPTION ("--backend=file|pmem",
#                  "--format=fs-verity|dm-verity")
# With SUB, the options are those of SUB's synopsis lines, with the other
# names the definition lines give them ("-n, --number ID").
_vublk_help_scan()
{
	awk -v prog="$1" -v subcmd="$2" '
	# The options in s, as "opt", "arg" and "val" lines, into out[].
	function scan(s, out,    m, o, rest, vals, n, i) {
		while (match(s, /(^|[ \t[|(,])--?[A-Za-z][A-Za-z0-9_-]*/)) {
			m = substr(s, RSTART, RLENGTH)
			rest = substr(s, RSTART + RLENGTH)
			sub(/^[^-]/, "", m)
			s = rest
			if (rest ~ /^\[?=/) {
				out["opt " m "="] = 1
				if (match(rest, /^\[?=[a-z0-9][a-z0-9-]*(\|[a-z0-9][a-z0-9-]*)+/)) {
					vals = substr(rest, 1, RLENGTH)
					sub(/^\[?=/, "", vals)
					n = split(vals, v, "|")
					for (i = 1; i <= n; i++)
						out["val " m "= " v[i]] = 1
				}
			} else {
				out["opt " m] = 1
				if (rest ~ /^ [A-Z]/)
					out["arg " m] = 1
			}
		}
	}
	function synopsis_line(s) {
		return s ~ ("(^|[ \t(])" prog "( |$)")
	}
	{
		if (synopsis_line($0)) {
			in_syn = 0
			w = $0
			sub(".*(^|[ \t(])" prog " +", "", w)
			split(w, words, /[ \t]+/)
			if (words[1] ~ /^[a-z][a-z0-9-]*$/)
				print "cmd " words[1]
			if (subcmd == "" || words[1] == subcmd) {
				in_syn = 1
				scan($0, chosen)
			}
			next
		}
		if (in_syn && $0 ~ /^[ \t]+\[/) {
			scan($0, chosen)
			next
		}
		in_syn = 0
		if ($0 ~ /^[ \t]+-/) {
			lead = $0
			sub(/^[ \t]+/, "", lead)
			i = index(lead, "  ")
			if (i)
				lead = substr(lead, 1, i - 1)
			defs[++ndefs] = lead
		}
	}
	END {
		for (d = 1; d <= ndefs; d++) {
			split("", these)
			scan(defs[d], these)
			wanted = (subcmd == "")
			for (k in these)
				if ((k in chosen) || ((k "=") in chosen))
					wanted = 1
			if (wanted)
				for (k in these)
					chosen[k] = 1
		}
		for (k in chosen)
			print k
	}'
}

# _vublk_ids: the ids of the devices there are, for -n.
_vublk_ids()
{
	local f id
	for f in "${VUBLK_RUN_DIR:-/run/vublk}"/[0-9]*.json \
		 /sys/class/ublk-char/ublkc[0-9]*; do
		[[ -e $f ]] || continue
		id=${f##*/}
		id=${id#ublkc}
		id=${id%%.*}
		[[ $id == +([0-9]) ]] && echo "$id"
	done | sort -un
}

# _vublk_reply LIST: the words of LIST that begin with the current word;
# no space after an option that ends with "=", its value follows.
_vublk_reply()
{
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
	[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] &&
		compopt -o nospace 2>/dev/null
	return 0
}

# _vublk_files: the file names that begin with the current word.
_vublk_files()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

_vublk()
{
	local prog=${COMP_WORDS[0]/#\~/$HOME} name=${COMP_WORDS[0]##*/}
	local cur=${COMP_WORDS[COMP_CWORD]} prev='' value_only=0
	local words=() i w cmd='' type='' scan help joined=0
	COMPREPLY=()

	# bash splits "--opt=value" into "--opt" "=" "value" (COMP_WORDBREAKS
	# has "="): join the words again, and remember that the current word
	# is then only what follows the "=".
	for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
		if [[ $w == = && ${#words[@]} -gt 0 ]]; then
			words[-1]+='='
			joined=1
		elif ((joined)); then
			words[-1]+=$w
			joined=0
		else
			words+=("$w")
		fi
	done
	if ((joined)); then
		cur=${words[-1]}$cur
		unset 'words[-1]'
		value_only=1
	elif [[ $cur == = && ${#words[@]} -gt 0 ]]; then
		cur=${words[-1]}=
		unset 'words[-1]'
		value_only=1
	fi
	((${#words[@]})) && prev=${words[-1]}

	# The subcommand, and for vublk add the target.
	for ((i = 0; i < ${#words[@]}; i++)); do
		w=${words[i]}
		if [[ -z $cmd && $w != -* ]]; then
			cmd=$w
		elif [[ $w == -t || $w == --type ]]; then
			type=${words[i + 1]}
		elif [[ $w == --type=* ]]; then
			type=${w#--type=}
		fi
	done

	if [[ $name == vublk ]]; then
		# One help for every subcommand, and one per target.
		help=$("$prog" help 2>/dev/null) || return 0
		scan=$(_vublk_help_scan vublk "${cmd:-help}" <<<"$help")
		[[ $cmd == add && -n $type ]] &&
			scan+=$'\n'$("$prog" "$type" --help 2>/dev/null | _vublk_help_scan vublk "")
	else
		# A help per subcommand (vublk-verity) or mode (vublk-bench).
		help=$("$prog" --help 2>/dev/null) || return 0
		if [[ -n $cmd ]]; then
			scan=$("$prog" "$cmd" --help 2>/dev/null | _vublk_help_scan "$name" "")
		else
			scan=$(_vublk_help_scan "$name" "" <<<"$help")
		fi
	fi

	if [[ $cur == -*=* ]]; then
		local opt=${cur%%=*}= o v vals=()
		while read -r w o v; do
			[[ $w == val && $o == "$opt" ]] && vals+=("$opt$v")
		done <<<"$scan"
		_vublk_reply "${vals[*]}"
		((value_only)) && COMPREPLY=("${COMPREPLY[@]#"$opt"}")
		return 0
	fi
	case $prev in
	-t|--type)
		[[ $name == vublk ]] || return 0
		_vublk_reply "$(sed -n '/^targets:/,/^$/s/^  \([a-z0-9]*\) .*/\1/p' <<<"$help")"
		return 0 ;;
	-n|--number)
		[[ $name == vublk ]] || return 0
		_vublk_reply "$(_vublk_ids)"
		return 0 ;;
	-f|--file)
		_vublk_files
		return 0 ;;
	esac
	# Any other option that takes the next word: nothing to offer.
	grep -qxF "arg $prev" <<<"$scan" && return 0

	if [[ $cur == -* ]]; then
		_vublk_reply "$(sed -n 's/^opt //p' <<<"$scan" | sort -u)"
	elif [[ -z $cmd || $cmd == help ]]; then
		_vublk_reply "$(_vublk_help_scan "$name" "" <<<"$help" | sed -n 's/^cmd //p')"
	elif [[ $name != vublk ]]; then
		# A subcommand's own subcommands (vublk-verity f2fs list), else
		# files (images).
		local subs
		subs=$("$prog" "$cmd" --help 2>/dev/null |
			_vublk_help_scan "$name $cmd" "" | sed -n 's/^cmd //p')
		if [[ -n $subs && ${#words[@]} -eq 1 ]]; then
			_vublk_reply "$subs"
		else
			_vublk_files
		fi
	fi
	return 0
}

complete -F _vublk vublk vublk-verity vublk-bench

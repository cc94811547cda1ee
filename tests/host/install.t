#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make install and make uninstall into a scratch DESTDIR: the files land where the
# Makefile says (docs/running.md), the installed p4dstat and la57-check answer --help
# from there with the repository out of reach, uninstall leaves no file behind, and
# neither writes anything in the repository. Needs `make tools` (p4dstat, la57-place).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh
top=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
prefix=/usr/local

for f in "$P4D_TOOLS/p4dstat" build/bin/la57-place; do
	if [ ! -x "$f" ]; then
		skip "make install" "no $f: run 'make tools'"
		tap_done
	fi
done

# Files written in the repository from here on: .git aside, and build/, where the jobs
# that tests/run-all runs beside this one write (install only reads from it).
touch "$tmp/stamp"
repo_writes() {
	find "$top" \( -path "$top/.git" -o -path "$top/build" \) -prune -o -newer "$tmp/stamp" -print |
		grep -v -x "$top"
}

## A bad PREFIX: one line, exit 2, nothing created.
make -s install PREFIX=usr/local DESTDIR="$tmp/bad" >"$tmp/out" 2>"$tmp/err"
rc=$?
is "make install PREFIX=usr/local: exit 2, nothing installed" \
	"$rc $(cat "$tmp/out")$([ -e "$tmp/bad" ] && echo created)" "2 "
is "make install PREFIX=usr/local: one line says why (then make's own)" \
	"$(head -n 1 "$tmp/err")" "make: PREFIX must be an absolute path, not 'usr/local'"

## Install.
make -s install PREFIX=$prefix DESTDIR="$dest" >"$tmp/out" 2>"$tmp/err"
is "make install PREFIX=$prefix DESTDIR=scratch exits 0" "$?" 0

# What a distribution's layout puts where: p4dstat needs root (sbin, as Debian's
# bpfcc-tools); la57-check is any user's (bin), its own files off PATH in lib/p4dscope;
# the bpftrace scripts and their transcripts where upstream bpftrace installs its tools,
# named p4d-* there so that they cannot clash with another tool's; man pages in section 8.
want=$(
	echo ".$prefix/sbin/p4dstat"
	echo ".$prefix/bin/la57-check"
	echo ".$prefix/share/man/man8/p4dstat.8"
	echo ".$prefix/share/man/man8/la57-check.8"
	echo ".$prefix/share/doc/p4dscope/p4dstat_example.txt"
	for f in bpf/bt/*.bt; do echo ".$prefix/share/bpftrace/tools/p4d-${f##*/}"; done
	for f in bpf/bt/*_example.txt; do echo ".$prefix/share/bpftrace/tools/doc/p4d-${f##*/}"; done
)
got=$(cd "$dest" && find . \( -type f -o -type l \) ! -path ".$prefix/lib/p4dscope/*" | sort)
is "installed files outside lib/p4dscope: exactly the tools, scripts and pages" \
	"$got" "$(sort <<<"$want")"
lib=$dest$prefix/lib/p4dscope
check "la57-check's own files in lib/p4dscope (its script, lib.sh, la57-place)" \
	test -x "$lib/scripts/la57-check" -a -f "$lib/scripts/lib.sh" -a -x "$lib/build/bin/la57-place"
modes=$(cd "$dest" && stat -c '%n %a' ".$prefix/sbin/p4dstat" ".$prefix/bin/la57-check" \
	".$prefix/share/man/man8/p4dstat.8" ".$prefix/share/bpftrace/tools/p4d-tlbflush.bt")
is "modes: programs and scripts 755, pages 644" "$modes" \
	".$prefix/sbin/p4dstat 755
.$prefix/bin/la57-check 755
.$prefix/share/man/man8/p4dstat.8 644
.$prefix/share/bpftrace/tools/p4d-tlbflush.bt 755"
# The installed scripts and transcripts name themselves by their installed names: only the
# lines that name a script change, and none names a repository path any more.
bt=$dest$prefix/share/bpftrace/tools
changed='' stale=''
for f in bpf/bt/*.bt bpf/bt/*_example.txt; do
	case $f in *.bt) inst=$bt/p4d-${f##*/} ;; *) inst=$bt/doc/p4d-${f##*/} ;; esac
	names='[a-z0-9]+(\.bt|_example\.txt)'
	if ! cmp -s <(grep -v -E "$names" "$f") <(grep -v -E "$names" "$inst") ||
		[ "$(grep -c -E "$names" "$f")" != "$(grep -c -E "p4d-$names" "$inst")" ]; then
		changed+=" ${f##*/}"
	fi
	grep -q -E "bpf/bt/|(^|[^-])\<$names" "$inst" && stale+=" ${f##*/}"
done
is "installed bpftrace scripts and transcripts: only their own names changed, to p4d-*" \
	"$changed" ""
is "installed bpftrace scripts and transcripts name no repository path or unprefixed script" \
	"$stale" ""
cmp -s "$dest$prefix/sbin/p4dstat" "$P4D_TOOLS/p4dstat"
is "the installed p4dstat is the built one" "$?" 0

## The installed programs, with the repository out of reach: in a mount namespace of
## their own, an empty directory over the repository (root on the host only; else they
## run with it in place, from outside it, with a clean environment).
run_installed() {	# run_installed OUT ERR CMD...: rc in $rc
	local out=$1 err=$2
	shift 2
	env -i PATH="$dest$prefix/sbin:$dest$prefix/bin:/usr/bin:/bin" HOME=/ "$@" >"$out" 2>"$err"
	rc=$?
}
mkdir "$tmp/empty"
hidden="repository hidden"
if ! unshare -m --propagation private true 2>/dev/null; then
	hidden="repository in place: no unshare here"
fi
for tool in p4dstat la57-check; do
	if [ "$hidden" = "repository hidden" ]; then
		# shellcheck disable=SC2016 # expanded by the inner bash
		(cd / && unshare -m --propagation private bash -c \
			'mount --bind "$1" "$2" && shift 2 && exec env -i PATH="$1" HOME=/ "$2" --help' \
			_ "$tmp/empty" "$top" "$dest$prefix/sbin:$dest$prefix/bin:/usr/bin:/bin" "$tool") \
			>"$tmp/$tool.out" 2>"$tmp/$tool.err"
		rc=$?
	else
		(cd / && run_installed "$tmp/$tool.out" "$tmp/$tool.err" "$tool" --help)
		rc=$?
	fi
	echo "$rc" >"$tmp/$tool.rc"
done
rc=$(cat "$tmp/p4dstat.rc")
if [ "$rc" = 0 ] && grep -q '^USAGE: p4dstat ' "$tmp/p4dstat.out" && [ ! -s "$tmp/p4dstat.err" ]
then
	ok "installed p4dstat --help: usage on stdout, exit 0 ($hidden)"
else
	not_ok "installed p4dstat --help: usage on stdout, exit 0 ($hidden)" "exit $rc" \
		"$(head -c 300 "$tmp/p4dstat.out")" "$(cat "$tmp/p4dstat.err")"
fi
# la57-check answers --help with its usage line: exit 0 on stdout (main's script before
# issue 29 printed it as a usage error, exit 2 on stderr). Anything else, such as a file
# it could not source, fails.
rc=$(cat "$tmp/la57-check.rc")
said=$(cat "$tmp/la57-check.out" "$tmp/la57-check.err")
if { [ "$rc" = 0 ] || [ "$rc" = 2 ]; } && [ "$(grep -c . <<<"$said")" = 1 ] &&
	[[ $said == "usage: la57-check "* ]]; then
	ok "installed la57-check --help: its usage line and nothing else ($hidden)"
else
	not_ok "installed la57-check --help: its usage line and nothing else ($hidden)" \
		"exit $rc" "$said"
fi

## Uninstall.
make -s uninstall PREFIX=$prefix DESTDIR="$dest" >"$tmp/out" 2>"$tmp/err"
is "make uninstall exits 0" "$?" 0
is "uninstall leaves no file behind" "$(cd "$dest" && find . \( -type f -o -type l \) | sort)" ""
left=$(cd "$dest" && find . -type d \( -path "*/p4dscope" -o -path "*/bpftrace*" \))
is "uninstall removes p4dscope's own directories" "$left" ""
make -s uninstall PREFIX=$prefix DESTDIR="$dest" >"$tmp/out" 2>"$tmp/err"
is "make uninstall again: nothing to remove, exit 0" "$?" 0

is "nothing was written in the repository" "$(repo_writes)" ""
tap_done

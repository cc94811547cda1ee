#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make deb's package (scripts/build-deb into a scratch folder): it builds, lintian finds no
# error in it, it holds exactly the files of `make install PREFIX=/usr` (the Makefile's
# INSTALLED) plus what Debian policy adds, nothing under /usr/local, its Depends name the
# libraries the programs link, and its man pages render without a warning. The guest
# half (tests/vanilla/deb.t) installs it on the stock kernel. Needs `make tools`.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh
top=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkg=p4dscope-tools

for f in "$P4D_TOOLS/p4dstat" build/bin/la57-place; do
	if [ ! -x "$f" ]; then
		skip "make deb" "no $f: run 'make tools'"
		tap_done
	fi
done
for cmd in dpkg-shlibdeps lintian man; do
	if ! command -v "$cmd" >/dev/null; then
		not_ok "make deb" "no $cmd: run 'make deps'"
		tap_done
	fi
done
touch "$tmp/stamp"

## Build and lint.
scripts/build-deb "$tmp/out" >"$tmp/build.out" 2>"$tmp/build.err"
rc=$?
debs=("$tmp/out/${pkg}"_*_amd64.deb)
deb=${debs[0]}
if [ "$rc" = 0 ] && [ ${#debs[@]} = 1 ] && [ -f "$deb" ]; then
	ok "scripts/build-deb: one $pkg package, exit 0"
else
	not_ok "scripts/build-deb: one $pkg package, exit 0" "exit $rc" "$(tail -n 5 "$tmp/build.err")"
	tap_done
fi
# lintian itself, not the build's status alone: tags are "X: package: tag [where]".
errors=$(grep -E '^E: ' "$tmp/out/lintian.txt")
is "lintian: no error" "$errors" ""
tags=$(grep -c -E '^[EWIPX]: ' "$tmp/out/lintian.txt")
echo "# lintian: $tags tags (warnings and others) in lintian.txt"
is "lintian's report is in the build's output" \
	"$(grep -c '^  lintian: [EW]: ' "$tmp/build.err")" "$(grep -c -E '^[EW]: ' "$tmp/out/lintian.txt")"

## Contents against make install's list.
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort >"$tmp/files"
installed=$(make -s --no-print-directory --eval 'print-installed: ; @printf "%s\n" $(INSTALLED)' \
	print-installed PREFIX=/usr | sort)
# Policy's additions: compressed man pages, the package's copyright and changelog.
got=$(sed -e 's,^\(/usr/share/man/.*\)\.gz$,\1,' \
	-e "\\,^/usr/share/doc/$pkg/\\(copyright\\|changelog\\.gz\\)$,d" "$tmp/files")
is "the package's files are make install PREFIX=/usr's INSTALLED list" "$got" "$installed"
is "the package has its copyright and changelog.gz" \
	"$(grep -c -x -E "/usr/share/doc/$pkg/(copyright|changelog\\.gz)" "$tmp/files")" 2
is "no file under /usr/local" "$(grep '^/usr/local/' "$tmp/files")" ""
check "the copyright file is machine-readable (DEP-5) and says GPL-2" \
	bash -c "dpkg-deb --fsys-tarfile '$deb' | tar -xO ./usr/share/doc/$pkg/copyright |
		grep -q -x 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' &&
		dpkg-deb --fsys-tarfile '$deb' | tar -xO ./usr/share/doc/$pkg/copyright |
		grep -q -x 'License: GPL-2'"

## Relationships: what the programs link, from their ELF headers, must be depended on.
mkdir "$tmp/root"
dpkg-deb -x "$deb" "$tmp/root"
depends=$(dpkg-deb -f "$deb" Depends)
missing='' libs=''
for elf in "$tmp/root/usr/sbin/p4dstat" "$tmp/root/usr/lib/p4dscope/build/bin/la57-place"; do
	for lib in $(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ { print $NF; exit }')
		owner=$(dpkg-query -S "$(realpath "$path")" 2>/dev/null | cut -d: -f1 | head -n 1)
		[ -n "$owner" ] || owner=$(dpkg-query -S "$path" 2>/dev/null | cut -d: -f1 | head -n 1)
		if [ -z "$owner" ]; then
			missing+=" $lib(no package owns it)"
		elif [[ ", $depends," != *", $owner "* && ", $depends," != *", $owner,"* ]]; then
			missing+=" $lib($owner)"
		fi
		libs+=" $owner"
	done
done
is "Depends names the package of every library p4dstat and la57-place link" "$missing" ""
echo "# linked:$libs; Depends: $depends"
check "Depends: libbpf1 (which brings libelf and zlib), binutils for la57-check" \
	bash -c "[[ '$depends' == *libbpf1* && '$depends' == *binutils* ]]"
is "Recommends bpftrace, Suggests qemu-system-x86" \
	"$(dpkg-deb -f "$deb" Recommends Suggests)" "Recommends: bpftrace
Suggests: qemu-system-x86"
check "the programs are stripped" \
	bash -c "! readelf -S '$tmp/root/usr/sbin/p4dstat' '$tmp/root/usr/lib/p4dscope/build/bin/la57-place' | grep -q -E '\\.(symtab|debug_info)'"

## The man pages: they render without warnings and name no repository path.
for page in "$tmp"/root/usr/share/man/man8/*.8.gz; do
	name=${page##*/}
	MANWIDTH=80 man --warnings -l "$page" >"$tmp/page.txt" 2>"$tmp/page.err"
	rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$tmp/page.err" ] && [ -s "$tmp/page.txt" ]; then
		ok "man --warnings -l $name: rendered, no warning"
	else
		not_ok "man --warnings -l $name: rendered, no warning" "exit $rc" "$(head -n 5 "$tmp/page.err")"
	fi
	# The repository's own folders (kernel paths such as arch/x86/mm/tlb.c are fine).
	is "$name names no repository path" \
		"$(grep -o -E '(^|[^a-z])(bpf|tests|scripts|la57check|docs|build|analysis)/[^ ]*|README\.md' "$tmp/page.txt")" ""
done

is "nothing was written in the repository" \
	"$(find "$top" \( -path "$top/.git" -o -path "$top/build" \) -prune -o -newer "$tmp/stamp" -print | grep -v -x "$top")" ""
tap_done

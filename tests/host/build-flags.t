#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The tools' Makefiles (bpf/ for p4dstat, la57check/ for la57-place) take CC, CFLAGS,
# CPPFLAGS and LDFLAGS from the environment, as a distribution's build passes them, and
# WERROR= drops -Werror. A CC that logs its arguments records every compile and link into a scratch
# folder; then both tools are built for real with Debian's hardening flags
# (dpkg-buildflags). Needs no kernel: p4dstat's BPF side declares its kernel types itself.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A compiler that appends its arguments to $tmp/cc.log, one call a line, then compiles.
cat >"$tmp/cc" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/cc.log"
exec gcc "\$@"
EOF
chmod +x "$tmp/cc"

# build WHERE OUT-DIR [VAR=VALUE...]: the tool of WHERE (bpf or la57check) into OUT-DIR,
# the VARs in make's environment (where a packaging tool puts them); prints "built", or
# make's status and last lines.
build() {
	local where=$1 out=$2 rc
	shift 2
	case $where in
	bpf) env "$@" make -s -C bpf KVER="$P4D_KVER" BIN="$out" OUT="$out/bpf" ;;
	la57check) env "$@" make -s -C la57check BIN="$out" ;;
	esac >"$tmp/make.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then echo built; else echo "make: exit $rc: $(tail -n 3 "$tmp/make.out")"; fi
}

flags=(CC="$tmp/cc" CFLAGS="-O1 -g -DP4D_MARK_CFLAGS" CPPFLAGS=-DP4D_MARK_CPPFLAGS
	"LDFLAGS=-Wl,--defsym=p4d_mark_ldflags=0x4d")
for where in bpf la57check; do
	tool=$([ $where = bpf ] && echo p4dstat || echo la57-place)
	: >"$tmp/cc.log"
	is "$where: make with CC, CFLAGS, CPPFLAGS, LDFLAGS builds $tool" \
		"$(build $where "$tmp/$where" "${flags[@]}")" built
	# The compiles: bpf/ compiles and links apart, la57check/ in one call.
	if [ $where = bpf ]; then grep -- ' -c ' "$tmp/cc.log"; else cat "$tmp/cc.log"; fi >"$tmp/compiles"
	is "$where: every compile had CPPFLAGS, -Werror and CFLAGS, in that order" \
		"$(grep -c . "$tmp/compiles" | sed 's/^[1-9][0-9]*$/some/') $(grep -cv -- '-DP4D_MARK_CPPFLAGS.* -Werror .*-DP4D_MARK_CFLAGS' "$tmp/compiles")" \
		"some 0"
	is "$where: the link had LDFLAGS ($tool has their symbol)" \
		"$(nm "$tmp/$where/$tool" 2>&1 | awk '$3 == "p4d_mark_ldflags" { print $1 }')" 000000000000004d
	: >"$tmp/cc.log"
	rm -rf "${tmp:?}/$where"
	is "$where: WERROR= builds without -Werror" \
		"$(build $where "$tmp/$where" CC="$tmp/cc" WERROR=) $(grep -c -- '-Werror' "$tmp/cc.log") $(grep -c . "$tmp/cc.log" | sed 's/^[1-9][0-9]*$/some/')" \
		"built 0 some"
done

# Debian's own flags, from dpkg-buildflags: hardening, fortify, format-security as errors.
if command -v dpkg-buildflags >/dev/null; then
	for where in bpf la57check; do
		rm -rf "${tmp:?}/$where"
		is "$where: builds with dpkg-buildflags' CFLAGS, CPPFLAGS and LDFLAGS" \
			"$(eval "$(dpkg-buildflags --export=sh)" && build $where "$tmp/$where")" built
	done
else
	skip "builds with dpkg-buildflags" "no dpkg-buildflags: apt-get install dpkg-dev"
fi

tap_done

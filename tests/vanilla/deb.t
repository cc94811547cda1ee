#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make deb's package on the stock kernel (no series): unpacked, its own p4dstat counts an
# interval and its la57-check runs a program natively, each from the package's paths.
# tests/host/deb.t checks the package itself (lintian, its file list, its man pages).
#
# The package is the one tests/run-all builds on the host before the boots
# (scripts/build-deb --no-lintian into build/deb-guest: seconds there, minutes under TCG),
# from this tree's tools. It is unpacked with dpkg-deb -x, not installed with dpkg --root:
# the guest's / is the host's, read-only, and dpkg --root would need a dpkg database of
# its own in the writable root and then refuse the package for dependencies it cannot see
# there; the dependencies (libbpf1, binutils) are the host's, which this guest runs on.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
pkg=p4dscope-tools

debs=("$top/build/deb-guest/${pkg}"_*_amd64.deb)
if [ ! -f "${debs[0]}" ]; then
	not_ok "the package tests/run-all built is there" "none in build/deb-guest" \
		"run through tests/run-all KVER:vanilla, which builds it"
	tap_done
fi
root=$tmp/root
dpkg-deb -x "${debs[0]}" "$root"
is "dpkg-deb -x unpacks it" "$?" 0

# Only the package's programs on PATH, the repository's nowhere on it.
run_pkg() {	# run_pkg OUT ERR CMD...: rc in $rc
	local out=$1 err=$2
	shift 2
	env -i PATH="$root/usr/sbin:$root/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin" HOME="$tmp" \
		XDG_RUNTIME_DIR="$tmp/xdg" "$@" >"$out" 2>"$err"
	rc=$?
}

## p4dstat: one 1-second interval as JSON, from the package's /usr/sbin.
run_pkg "$tmp/p4dstat.out" "$tmp/p4dstat.err" p4dstat -j 1 1
is "the package's p4dstat -j 1 1 exits 0" "$rc" 0
[ "$rc" = 0 ] || echo "#   $(head -n 3 "$tmp/p4dstat.err")"
# Every line a JSON object; at least the interval's and the totals'.
parsed=$(python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    if not isinstance(json.loads(line), dict):
        sys.exit("not an object: " + line)
    n += 1
print(n)' "$tmp/p4dstat.out" 2>&1)
check "p4dstat's output: one JSON object per line, two or more ($parsed)" \
	test "$parsed" -ge 2 2>/dev/null

## la57-check: its version, and a native check of /bin/true (this guest runs 5-level
## paging), with only the package's helpers.
run_pkg "$tmp/ver.out" "$tmp/ver.err" la57-check --version
is "the package's la57-check --version: the source's version, exit 0" \
	"$rc $(cat "$tmp/ver.out" "$tmp/ver.err")" "0 $("$top/scripts/la57-check" --version 2>&1)"
mkdir -p "$tmp/xdg"
run_pkg "$tmp/check.out" "$tmp/check.err" la57-check --native --follow 0 -- /bin/true
# 0: survived. /bin/true's libraries are mmaps la57-place moves above 47 bits.
is "the package's la57-check --native -- /bin/true: survived (exit 0)" "$rc" 0
[ "$rc" = 0 ] || sed -n '1,8s/^/#   /p' "$tmp/check.out" "$tmp/check.err"
tap_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# walkmodel.so refusing bad input through scripts/run-guest: QEMU does not start, the
# plugin's one-line reason reaches stderr, run-guest exits 125, and no result file is left
# behind. The guest never boots in these cases, so this costs a QEMU start each.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

so=build/walkmodel/walkmodel.so
if [ ! -f "$P4D_KERNELS/patched/arch/x86/boot/bzImage" ]; then
	skip "walkmodel.so bad input" "no patched kernel: run 'make kernel'"
	tap_done
fi
if ! make -s -C analysis/walkmodel plugin >"$tmp/make" 2>&1; then
	not_ok "walkmodel.so builds" "$(tail -n 5 "$tmp/make")"
	tap_done
fi

# refuses NAME WANT-STDERR-PART PLUGIN-ARGS [RUN-GUEST-ARGS...]
refuses() {
	local name=$1 want=$2 args=$3 rc
	shift 3
	scripts/run-guest "$@" --timeout 60 --plugin "$so$args" -- true >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 125 ] && grep -q "^walkmodel: .*$want" "$tmp/err" &&
		! compgen -G "$tmp/res.*" >/dev/null; then
		ok "$name: exit 125, '$want', no result file"
	else
		not_ok "$name: exit 125, '$want', no result file" "exit $rc" \
			"stderr: $(head -c 400 "$tmp/err")" "files: $(ls "$tmp")"
	fi
}

refuses "unknown preset" "unknown preset 'bogus' (known: zen4" ",preset=bogus,out=$tmp/res"
refuses "bad paging level" "bad argument 'levels=7'" ",levels=7,out=$tmp/res"
refuses "unknown argument" "bad argument 'colour=blue'" ",colour=blue,out=$tmp/res"
refuses "bad sweep value" "bad argument 'sweep=maybe'" ",sweep=maybe,out=$tmp/res"
refuses "no output prefix" "needs out=" ",preset=zen4"
refuses "unwritable output" "cannot write $tmp/ro/res" ",out=$tmp/ro/res" --paging 4

# A run whose command never reaches WALKMARK_START(): the guest runs, the plugin says why
# it writes nothing, and nothing is written.
scripts/run-guest --paging 4 --timeout 300 --plugin "$so,preset=nopsc,out=$tmp/res" -- true \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -q '^walkmodel: no complete measured part' "$tmp/err" &&
	! compgen -G "$tmp/res.*" >/dev/null; then
	ok "no measured part: the command's status, the reason, no result file"
else
	not_ok "no measured part: the command's status, the reason, no result file" "exit $rc" \
		"stderr: $(head -c 400 "$tmp/err")"
fi

# run-guest's own checks: the plugin models one CPU, and the shared object must exist.
scripts/run-guest --smp 2 --plugin "$so" -- true 2>"$tmp/err"
is "--plugin with --smp 2: usage error" "$? $(grep -c 'one CPU' "$tmp/err")" "123 1"
scripts/run-guest --plugin "$tmp/none.so" -- true 2>"$tmp/err"
is "--plugin with a missing object: usage error" "$? $(grep -c 'no .*none.so' "$tmp/err")" "123 1"
tap_done

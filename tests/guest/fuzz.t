#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The mmap/mremap/munmap fuzzer (tests/validate/mmapfuzz.c): 100000 random calls on this
# paging mode, hints over the whole 64-bit range, every call checked against the
# documented behaviour. Two seeds, each for 35% of the calls on the top-down layout and
# 15% on the legacy bottom-up one: a fixed one, the same every run, and one derived from
# the commit under test (the same for every run of a commit, new with each commit), or
# P4DSCOPE_FUZZ_SEED's: a decimal seed replays that seed, "fresh" draws a new one (make
# test-full). Each TAP name gives its seed and the line that runs it again. On 5-level
# some placements must land above 47 bits, on 4-level and no5lvl none; each departure
# from the documentation that docs/validation.md documents must still show with the
# fixed seed. A fault planted in the oracle (-O) must be reported. P4DSCOPE_FUZZ_CALLS
# overrides the total (tests/run-debug --ci runs fewer on the slow debug kernel). To
# replay a failure:
#   scripts/run-guest --paging MODE -- build/bin/mmapfuzz -m MODE -l LAYOUT -s SEED -n CALLS
# (mmapfuzz prints that line, with the call that failed).
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
FIXED_SEED=20261204

# The second seed, and where it comes from. The guest sees the checkout read-only at the
# same path, its files owned by whoever owns them on the host: git refuses a repository
# another user owns unless it is a safe.directory (a command-line setting counts).
case ${P4DSCOPE_FUZZ_SEED:-} in
"")
	if commit=$(git -c safe.directory="$top" -C "$top" rev-parse --verify -q HEAD 2>/dev/null); then
		# 60 bits of the commit's hash: a positive number in bash and in mmapfuzz.
		seed=$((16#${commit:0:15})) origin="commit ${commit:0:12}"
	else
		seed=$FIXED_SEED origin="no git checkout at $top, no commit to derive a seed from"
	fi ;;
fresh)
	# Not /dev/urandom: reading it before the crng is ready would make it ready, and
	# change what %p prints for the tests after this one.
	seed=$(date +%s%N) origin=fresh ;;
*)
	seed=${P4DSCOPE_FUZZ_SEED}
	if [[ ! $seed =~ ^[0-9]{1,19}$ ]] || [ $((10#$seed)) -lt 0 ]; then
		not_ok "mmapfuzz: P4DSCOPE_FUZZ_SEED" \
			"'$seed' is neither a decimal seed below 2^63 nor 'fresh'"
		tap_done
	fi
	seed=$((10#$seed)) origin=P4DSCOPE_FUZZ_SEED ;;
esac
seeds=("$FIXED_SEED")
[ "$seed" = $FIXED_SEED ] || seeds+=("$seed")
echo "# seeds: $FIXED_SEED (fixed), $seed ($origin)"
hugepages=$(cat /proc/sys/vm/nr_hugepages)
echo 16 >/proc/sys/vm/nr_hugepages
total=${P4DSCOPE_FUZZ_CALLS:-100000}
# docs/validation.md lists each as "- `NAME`: what it does", or "- `NAME` (TREE, ...): ..."
# where only those trees show it: the ones this tree must show.
documented=$(sed -n "s/^- \`\([A-Za-z0-9_-]*\)\`\( (\([0-9., ]*\))\)\{0,1\}: .*/\1 \3/p" \
	../../docs/validation.md | awk -v t="$P4D_KVER" '
	NF == 1 { print $1; next }
	{ for (i = 2; i <= NF; i++) { tree = $i; sub(/,$/, "", tree); if (tree == t) print $1 } }' | sort)
high=0 fixed_seen=
for s in "${seeds[@]}"; do
	if [ "$s" = $FIXED_SEED ]; then
		why=fixed
		[ "$seed" != $FIXED_SEED ] || why+="; also the second seed: $origin"
	else
		why=$origin
	fi
	for run in topdown:$((total * 35 / 100)) legacy:$((total * 15 / 100)); do
		layout=${run%:*} calls=${run#*:}
		out=$("$bin"/mmapfuzz -m "$mode" -l "$layout" -n "$calls" -s "$s" 2>&1)
		rc=$?
		name="mmapfuzz $layout, $calls calls, seed $s ($why; again: P4DSCOPE_FUZZ_SEED=$s make test)"
		if [ $rc -eq 0 ] && grep -q "^mmapfuzz: PASS calls=$calls " <<<"$out"; then
			ok "$name"
			grep -v '^mmapfuzz: seed=' <<<"$out" | sed 's/^/# /'
		else
			not_ok "$name" "exit $rc" "$out"
		fi
		placed=$(sed -n 's/^mmapfuzz: PASS .* above47=\([0-9]*\) .*/\1/p' <<<"$out")
		high=$((high + ${placed:-0}))	# none counted from a run that failed
		[ "$s" != $FIXED_SEED ] || fixed_seen+=$(sed -n 's/^mmapfuzz: known deviations://p' <<<"$out")
	done
done
## Calls that once failed where the oracle, not the kernel, was wrong: each replays
## clean on every tree and mode (tests/validate/fuzz-regressions/, the why in each file).
chmod 755 "$tmp"	# mmapfuzz drops root before it reads or writes files
for calls in ../validate/fuzz-regressions/*.calls; do
	layout=$(sed -n 's/^# layout: //p' "$calls")
	out=$("$bin"/mmapfuzz -m "$mode" -l "${layout:-topdown}" -r "$calls" -c 1 2>&1)
	rc=$?
	if [ $rc = 0 ] && grep -q '^mmapfuzz: PASS ' <<<"$out"; then
		ok "regression ${calls##*/}: its calls replay clean"
	else
		not_ok "regression ${calls##*/}: its calls replay clean" "exit $rc" "$out"
	fi
done
# The fixed seed replays the same calls every run: each documented deviation must still
# show in them, or the documentation describes a kernel that no longer behaves so. (That
# the fuzzer predicts exactly the documented ones is tests/host/fuzz-deviations.t's.)
unseen=$(for d in $documented; do
	grep -qE " $d=[1-9]" <<<"$fixed_seen" || echo "$d"; done)
is "seed $FIXED_SEED: every documented deviation still shows" "$unseen" ""
if [ "$mode" = 5 ]; then
	check "5-level: placements landed above 47 bits ($high)" test "$high" -gt 0
else
	is "paging $mode: no placement above 47 bits" "$high" 0
fi

## The oracle, on a planted fault (-O: it takes an occupied hint for a free one): the
## kernel places such a mapping elsewhere, and the fuzzer must say so.
out=$("$bin"/mmapfuzz -m "$mode" -n 3000 -s $FIXED_SEED -q -S -O 2>&1)
rc=$?
is "planted oracle fault: mmapfuzz reports the hint it wrongly expected (exit 1)" \
	"$rc $(grep -c '^mmapfuzz: FAIL .* the free, valid hint was ' <<<"$out")" "1 1"

## The failure path, on a planted fault (-F: a munmap that succeeds after a 3-page
## mapping fails): the failing run is shrunk to the 2 calls the fault needs, and both the
## shrunk calls and the printed replay line (which names this mode) fail the same way.
out=$("$bin"/mmapfuzz -m "$mode" -n 3000 -s $FIXED_SEED -F 2>&1)
rc=$?
kind=$(sed -n 's/^mmapfuzz: FAIL kind=\([0-9a-f]*\) .*(the planted fault of -F)$/\1/p' <<<"$out")
is "planted fault: mmapfuzz fails on it (exit 1)" "$rc ${kind:+planted}" "1 planted"
sed -n 's/^mmapfuzz: shrunk: //p' <<<"$out" >"$tmp/shrunk"
is "planted fault: shrunk to 2 calls, an mmap and a munmap" \
	"$(awk '{ print $1 }' "$tmp/shrunk" | tr '\n' ' ')" "mmap munmap "
chmod 644 "$tmp/shrunk"
replayed=$("$bin"/mmapfuzz -m "$mode" -r "$tmp/shrunk" -c 1 -F -S 2>&1)
check "planted fault: the shrunk calls, replayed, fail the same way (kind $kind)" \
	grep -q "^mmapfuzz: FAIL kind=$kind " <<<"$replayed"
line=$(sed -n 's/^mmapfuzz: replay with: mmapfuzz //p' <<<"$out")
is "planted fault: the replay line names this mode" "${line%% -l *}" "-m $mode"
read -ra replay_args <<<"$line"
replayed=$("$bin"/mmapfuzz "${replay_args[@]}" -F -S 2>&1)
check "planted fault: the replay line fails the same way" \
	grep -q "^mmapfuzz: FAIL kind=$kind " <<<"$replayed"
rm -rf "$tmp"

echo "$hugepages" >/proc/sys/vm/nr_hugepages
tap_done

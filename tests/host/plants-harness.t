#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/run-plants on the host, with no guest and no kernel build. Its judge: a failed
# check counts for a field only when it is one the field's list names, from the start of
# its name to a word boundary; the list names checks that exist, in tests run-plants runs
# for the event. Its failures: a plants boot that dies, plants whose tests never finished,
# a mutant that does not apply, one that does not build and one whose boot dies each turn
# it red with a named line, next to a control run where every plant is caught and it
# passes. run-plants gets a fake runner (P4D_PLANTS_RUN_GUEST), this test's mutants
# (P4D_PLANTS_MUTANTS) and a build directory of this test's own (P4D_BUILD) holding a
# throwaway git tree to apply them to. Last, every mutant of tests/plants/mutants must
# apply to each prepared kernel tree's series (branch patched), checked on a scratch index:
# the tree is not touched.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
. tests/lib/tap.sh
. tests/plants/judge.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

## The match: from the start of the name, to a word boundary
bad=() n=0
while IFS='|' read -r want name pattern; do
	n=$((n + 1))
	if names_check "$name" "$pattern"; then got=yes; else got=no; fi
	[ "$got" = "$want" ] || bad+=("'$name' for '$pattern': $got, want $want")
done <<'EOF'
yes|level pgd|level
yes|level|level
yes|level: pgd|level
yes|level (5)|level
no|4-level|level
no|levels|level
no|level-2|level
no|level_2|level
no|level.2|level
no|top-level|level
no|a level|level
yes|floor: unmapping|floor:
yes|floor:x|floor:
no|flo|floor:
no|anything|
EOF
is "names_check: $n planted names against patterns (whole words from the start, '-', '_' and '.' inside words)" \
	"$(printf '%s\n' "${bad[@]}")" ""

failed='events-sync: hotplug on 4-level: the new top-level entry was copied (1)
events-sync: hotplug: copied = visited tables x new top-level entries (from the layout)
events-sync: hotplug: every sync at levels pgd
events: hotplug: every sync at level pgd'
is "kernel_pgd_sync:level: 4-level, top-level, levels and another test's check do not read it" \
	"$(reading kernel_pgd_sync:level <<<"$failed")" ""
is "kernel_pgd_sync:level: the check of the level itself does" \
	"$(reading kernel_pgd_sync:level <<<"$failed
events-sync: hotplug: every sync at level pgd")" "events-sync: hotplug: every sync at level pgd"
is "kernel_pgd_sync:copied: both events-sync checks that read it" \
	"$(reading kernel_pgd_sync:copied <<<"$failed")" \
	"events-sync: hotplug on 4-level: the new top-level entry was copied (1)
events-sync: hotplug: copied = visited tables x new top-level entries (from the layout)"
is "failed_checks: the names of the failed results, not of the passed or skipped ones" \
	"$(failed_checks <(printf '%s\n' 'ok 1 a: passed' 'not ok 2 b: failed (x)' 'ok 3 c: skipped # SKIP why' \
		'not ok 14 d: also failed' '# not ok 5 e: a diagnostic'))" "b: failed (x)
d: also failed"

## The table names checks that exist, in the tests run-plants runs for their event
declare -A tests_for=()
while read -r event tests; do tests_for[$event]=$tests; done < <(
	sed -n 's/^\t\[\([a-z0-9_]*\)\]="\([^"]*\)"$/\1 \2/p' tests/run-plants)
bad=() n=0
while read -r field; do
	[ -n "$(checks_of "$field")" ] || bad+=("$field: no check")
	while IFS= read -r pattern; do
		n=$((n + 1))
		test=${pattern%%: *} wording=${pattern#*: }
		if [ ! -f "tests/guest/$test.t" ]; then
			bad+=("$field: '$pattern': no tests/guest/$test.t")
		elif ! grep -qF -- "$wording" "tests/guest/$test.t"; then
			bad+=("$field: '$pattern': not in tests/guest/$test.t")
		elif [[ " ${tests_for[${field%%:*}]:-} " != *" $test.t "* ]]; then
			bad+=("$field: '$pattern': run-plants does not run $test.t for ${field%%:*}")
		fi
	done < <(checks_of "$field")
done < <(fields)
is "tests/plants/field-checks: $(fields | grep -c .) fields, each with checks; $n checks, each in its test's source and run for its event" \
	"$(printf '%s\n' "${bad[@]}")" ""

## run-plants against a fake guest runner and fake mutants
kver=${P4D_KVER:-6.1}
build=$tmp/build tree=$tmp/build/linux-$kver
mkdir -p "$build/kernel-$kver/patched/arch/x86/boot" "$tmp/mutants" "$tree"
echo "the patched kernel" >"$build/kernel-$kver/patched/arch/x86/boot/bzImage"
# The tree: one source file and a build that fails when the mutant says so.
printf 'int synced;\n' >"$tree/sync.c"
# shellcheck disable=SC2016 # $(O) is make's
printf 'bzImage:\n\t@if grep -q unbuildable sync.c; then echo "sync.c:1: planted build error" >&2; exit 1; fi\n\t@mkdir -p $(O)/arch/x86/boot && cp sync.c $(O)/arch/x86/boot/bzImage\n' \
	>"$tree/Makefile"
git -C "$tree" init -q -b patched && git -C "$tree" add -A &&
	git -C "$tree" -c user.name=t -c user.email=t@localhost commit -qm base
# mutant NAME WHAT OLD NEW: a mutant that changes sync.c's first line from OLD to NEW.
mutant() {
	printf 'Mutant: %s.\n\nField: kernel_pgd_sync:copied\n\n--- a/sync.c\n+++ b/sync.c\n@@ -1 +1 @@\n-%s\n+%s\n' \
		"$2" "$3" "$4" >"$tmp/mutants/$1.patch"
}
mutant unappliable "its context is not in the tree" 'int unsynced;' 'int unsynced = 1;'
mutant unbuildable "it breaks the build" 'int synced;' 'int synced; /* unbuildable */'
mutant dies-at-boot "its kernel panics" 'int synced;' 'int synced = 1;'
# The runner: a green control; per FAKE_PLANTS, plants caught (catch), caught until the
# boot dies after the first (die), or failing checks that do not read their field
# (escape); a mutant's kernel (under build/plants/) panics.
cat >"$tmp/run-guest" <<'EOF'
#!/usr/bin/env bash
. tests/plants/judge.sh
kernel=
while [ "$1" != -- ]; do [ "$1" != --kernel ] || kernel=$2; shift; done
shift
echo "$kernel" >>"$(dirname "$0")/boots"
case $kernel in */plants/*) echo "Kernel panic - not syncing: planted"; exit 125 ;; esac
[ "$1" = bash ] || { echo "ok 1 events-sync: hotplug: every sync at level pgd"; echo "1..1"; exit 0; }
for p in $(grep -o "### plant [^']*" <<<"$3" | cut -d' ' -f3); do
	echo "### plant $p"
	echo "# plant: 1 records changed by $p"
	case "$FAKE_PLANTS $p" in
	"escape p4d_alloc:outcome") echo "not ok 1 raced: racehold: every region's hold was released by the install and the held thread raced (its own view)" ;;
	"escape "*) echo "not ok 1 events: highmap reported 4 children" ;;
	*) echo "not ok 1 $(checks_of "$(cut -d: -f1,2 <<<"$p")" | head -n 1) (planted)" ;;
	esac
	echo "1..1"
	[ "$FAKE_PLANTS" != die ] || { echo "Kernel panic - not syncing: planted"; exit 125; }
done
exit 1
EOF
chmod +x "$tmp/run-guest"
# plants FAKE_PLANTS ARGS...: run-plants with the fakes; its output in $tmp/out, status in rc.
plants() {
	FAKE_PLANTS=$1 P4D_BUILD=$build P4D_KVER=$kver P4D_PLANTS_RUN_GUEST=$tmp/run-guest \
		P4D_PLANTS_MUTANTS=$tmp/mutants tests/run-plants "${@:2}" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# has PATTERN: a line of run-plants' output matches the ERE.
# shellcheck disable=SC2317 # called through check
has() { grep -qE -- "$1" "$tmp/out"; }
final() { tail -n 1 "$tmp/out"; }

plants catch --ci --no-mutants
n_plants=$(grep -c '^### plant ' "$build/plants/plants-5.log")
is "control: every plant caught, run-plants passes" "$rc $(final)" \
	"0 $n_plants caught, 0 escaped, 0 not applicable, 0 not judged"

plants die --ci --no-mutants
log=$build/plants/plants-5.log
is "a plants boot that dies after its first plant: run-plants fails" "$rc" 1
check "... the plants judged before it are judged" has '^ok 1 p4d_alloc:outcome \(paging 5\) is caught by 1 checks'
check "... each later plant is a named failure, with its log" \
	has "^not ok 2 p4d_free:pfn \(paging 5\) was not judged: its tests never finished in the plants boot \($log\)$"
check "... the dead boot is one, with the runner's status, its last line and the log" \
	has "^not ok [0-9]+ the plants boot \(paging 5\) died, run-guest exit 125: Kernel panic - not syncing: planted \($log\)$"
is "... the final line counts them" "$(final)" "1 caught, 0 escaped, 0 not applicable, $n_plants not judged"

plants escape --ci --no-mutants
is "plants whose failed checks do not read their field: run-plants fails, each escaped" \
	"$rc $(final)" "1 0 caught, $n_plants escaped, 0 not applicable, 0 not judged"
check "... racehold's own view, a check whose name says raced, does not catch a plant of outcome" \
	has '^not ok [0-9]+ p4d_alloc:outcome \(paging 5\) is caught$'

plants catch --mutants-only 5
plants=$build/plants
is "mutants that do not apply, build or boot: run-plants fails" "$rc $(final)" \
	"1 0 caught, 0 escaped, 0 not applicable, 3 not judged"
check "... one that does not apply, named with the tree and the log" \
	has "^not ok [0-9]+ mutant unappliable \(paging 5\) was not judged: it does not apply to $tree \($plants/unappliable-$kver.apply.log\)$"
check "... one that does not build, with its build log" \
	has "^not ok [0-9]+ mutant unbuildable \(paging 5\) was not judged: it did not build \($plants/unbuildable-$kver.build.log\)$"
check "... whose build failed with the mutant applied" grep -q 'sync.c:1: planted build error' "$plants/unbuildable-$kver.build.log"
check "... one whose kernel panics, with the runner's status and its log" \
	has "^not ok [0-9]+ mutant dies-at-boot \(paging 5\) was not judged: its tests never finished, run-guest exit 125: Kernel panic - not syncing: planted \($plants/mutant-dies-at-boot-5.log\)$"
is "... the tree is as it was (git status), no mutant's work copy left" \
	"$(git -C "$tree" status --porcelain)$(ls "$build/kernel-$kver")" "patched"

plants catch --mutants-only --mutant unbuildable 5
is "--mutant NAME: that mutant alone" "$(grep -c '^not ok .* mutant ' "$tmp/out") $(grep -o 'mutant [a-z-]*' "$tmp/out" | sort -u)" \
	"1 mutant unbuildable"

mutant equivalent "it changes nothing on 5-level" 'int synced;' 'int synced = 2;'
sed -i 's/^Field: .*/&\nEquivalent on: 5 no5lvl/' "$tmp/mutants/equivalent.patch"
: >"$tmp/boots"
plants catch --mutants-only --mutant equivalent 5
is "a mutant equivalent on the mode: not applicable, and nothing is built or booted" \
	"$rc $(final) $(grep -c . "$tmp/boots") $(compgen -G "$plants/equivalent*" | grep -c .)" \
	"0 0 caught, 0 escaped, 1 not applicable, 0 not judged 0 0"
check "... its line says why, from its patch" has '^ok 1 mutant equivalent \(paging 5\) # SKIP equivalent on paging 5: Mutant: it changes nothing on 5-level'

## Every mutant, in the tree's own form where it has one, applies to every prepared tree
## (its branch patched: the series)
mutants=(tests/plants/mutants/*.patch)
trees=0
for t in build/linux-*/; do
	t=${t%/}
	[ -e "$t/.p4dscope-series" ] || continue
	trees=$((trees + 1))
	bad=()
	if ! GIT_INDEX_FILE=$tmp/index git -C "$t" read-tree refs/heads/patched 2>"$tmp/err"; then
		bad+=("$(cat "$tmp/err")")
	else
		for m in "${mutants[@]}"; do
			# The tree's own form of a mutant, where it has one (run-plants' mutant()).
			own=tests/plants/mutants/${t##*/linux-}/$(basename "$m")
			[ ! -f "$own" ] || m=$own
			GIT_INDEX_FILE=$tmp/index git -C "$t" apply --cached --check "$top/$m" 2>"$tmp/err" ||
				bad+=("$m: $(head -n 1 "$tmp/err")")
		done
	fi
	rm -f "$tmp/index"
	is "every mutant (${#mutants[@]}) applies to $t (a scratch index of its branch patched)" \
		"$(printf '%s\n' "${bad[@]}")" ""
done
[ $trees -gt 0 ] || echo "# no prepared kernel tree under build/ (make kernel prepares one): mutants not checked"
tap_done

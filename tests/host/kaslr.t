#!/usr/bin/env bash
# KASLR of the kernel memory map over several boots per paging mode: each boot runs
# tests/guest/layout.t, which checks the direct map, vmalloc, vmemmap and kernel text
# against Documentation/x86/x86_64/mm.rst and prints the bases it read from ptdump.
# Across the KASLR boots the bases must differ; a nokaslr boot puts them exactly at the
# documented bases (layout.t checks that when /proc/cmdline says nokaslr).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BOOTS=3

# boot NAME MODE [KERNEL PARAMETER]: layout.t in one guest; its output in $tmp/NAME.
boot() {
	P4DSCOPE_APPEND=${3:-} scripts/run-guest --paging "$2" --timeout 300 -- \
		tests/guest/layout.t >"$tmp/$1" 2>&1
}

for mode in 5 4 no5lvl; do
	failed=()
	for i in $(seq $BOOTS); do
		boot "$mode.$i" "$mode" || failed+=("boot $i:" "$(grep -A3 '^not ok' "$tmp/$mode.$i" | grep -v '^ok ' |
			head -n 8 | sed 's/^/  /')")	# indented: no TAP line of its own
	done
	if [ ${#failed[@]} -eq 0 ]; then
		ok "paging $mode: $BOOTS KASLR boots, each with its layout inside the documented ranges"
	else
		not_ok "paging $mode: $BOOTS KASLR boots, each with its layout inside the documented ranges" "${failed[@]}"
	fi
	cat "$tmp/$mode".[0-9]* | sed -n 's/^# kaslr-bases: //p' >"$tmp/$mode.bases"
	for region in direct vmalloc vmemmap text; do
		values=$(grep -o "$region=0x[0-9a-f]*" "$tmp/$mode.bases" | cut -d= -f2)
		distinct=$(sort -u <<<"$values" | grep -c .)
		if [ "$region" = text ]; then
			# The image moves in 2 MiB steps over 1 GiB: two of three boots can match.
			want=2 what="not all equal"
		else
			# These move in 1 GiB steps over terabytes: all differ.
			want=$BOOTS what="all different"
		fi
		if [ "$(grep -c . <<<"$values")" -eq $BOOTS ] && [ "$distinct" -ge $want ]; then
			ok "paging $mode: $region base over $BOOTS boots: $what ($(echo $values))"
		else
			not_ok "paging $mode: $region base over $BOOTS boots: $what" "bases: $(echo $values)"
		fi
	done
	if boot "$mode.nokaslr" "$mode" nokaslr && [ "$(grep -c '^ok .* nokaslr: ' "$tmp/$mode.nokaslr")" -eq 4 ]; then
		ok "paging $mode, nokaslr: direct map, vmalloc, vmemmap and text at the documented bases"
	else
		not_ok "paging $mode, nokaslr: direct map, vmalloc, vmemmap and text at the documented bases" \
			"$(grep -A3 '^not ok' "$tmp/$mode.nokaslr" | head -n 12)"
	fi
done
tap_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every committed cost report is what its committed records give: analysis/report/regenerate
# writes each report into a scratch root, and every committed file of the report's folder
# (results.md, the CSV files, the plot data and the plots) must come out byte for byte, and
# every file it writes must be committed or git-ignored there. A hand edit of a figure, or
# a report left behind by a change of stats.py, fails here. Reports without records are
# named in a comment: they cannot be checked.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
. tests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! out=$(analysis/report/regenerate "$tmp" 2>&1); then
	not_ok "analysis/report/regenerate ran" "$out"
	tap_done
fi
ok "analysis/report/regenerate ran ($(grep -c REPORT <<<"$out") reports)"

while IFS= read -r md; do
	dir=${md%/*}
	rel=${dir#analysis/results}
	if [ ! -d "$dir/records" ]; then
		# Nothing to check, and not a skip: a report made before its run kept records
		# (analysis/README.md) stays as it is until its next full run.
		echo "# not checked: $dir has no records/ (made before full runs kept them)"
		continue
	fi
	# The folder's own files: not its records, its README or other reports' folders.
	diffs=$(git ls-files -- "$dir" | grep -E "^$dir/[^/]+\$" | grep -v '/README.md$' |
		while read -r f; do
			g=$tmp$rel/${f##*/}
			[ -f "$g" ] || { echo "$f: not written"; continue; }
			cmp -s "$f" "$g" || echo "$f: differs ($(diff "$f" "$g" 2>/dev/null | head -n 3 | tr '\n' ' '))"
		done)
	is "$dir: every committed file is what its records give" "$diffs" ""
	stray=$(for g in "$tmp$rel"/*; do
		f=$dir/${g##*/}
		git ls-files --error-unmatch -- "$f" >/dev/null 2>&1 || git check-ignore -q -- "$f" ||
			echo "$f"
	done)
	is "$dir: every file it writes is committed or git-ignored" "$stray" ""
done < <(git ls-files -- 'analysis/results/*results.md' 'analysis/results/*walkmodel.md' | sort)

tap_done

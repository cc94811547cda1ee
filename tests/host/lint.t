#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Static checks of the project's own files: shellcheck (warnings and errors, sourced
# files followed) on every tracked shell script, pyflakes3 on every Python file, each
# file one result, so a finding names its file; and the licence line (LICENSE) in every
# source, script, Makefile, configuration fragment, bpftrace script and man page; and the
# x bit of every file that starts with #!.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

for tool in shellcheck pyflakes3; do
	if ! command -v $tool >/dev/null; then
		not_ok "$tool is installed" "run 'make deps' (Debian package $tool)"
		tap_done
	fi
done

# Shell: *.sh, *.t, and files whose first line runs bash or sh.
mapfile -t shell < <(git ls-files | while IFS= read -r f; do
	[ -f "$f" ] || continue
	case "$f" in
	*.sh | *.t) echo "$f" ;;
	*.*) ;;
	*) head -n 1 "$f" | grep -qE '^#!(/usr)?/bin/(env )?(ba)?sh' && echo "$f" ;;
	esac
done)
check "shell scripts found (${#shell[@]})" test ${#shell[@]} -gt 20
for f in "${shell[@]}"; do
	# -x -P SCRIPTDIR: follow `. file` relative to the script, as it runs.
	check "shellcheck: $f" shellcheck -x -P SCRIPTDIR -S warning -f gcc "$f"
done

mapfile -t python < <(git ls-files '*.py')
check "Python files found (${#python[@]})" test ${#python[@]} -gt 0
for f in "${python[@]}"; do
	check "pyflakes3: $f" pyflakes3 "$f"
done

# A file that starts with #! runs as a command: the repository keeps it executable (a test
# checked in without its x bit dies with exit 126 in every fresh clone).
not_exec=$(git ls-files -s | while read -r mode _ _ f; do
	[ -f "$f" ] && [ "$mode" != 100755 ] && head -c 2 "$f" | grep -q '^#!' && echo "$f"
done)
is "every file that starts with #! is executable in the repository (mode 100755)" "$not_exec" ""

# Data and text carry none: documentation, records, figures, fixtures, kernel patches (the
# files they change carry the kernel's own).
spdx_exempt() {
	case "$1" in
	LICENSE | .gitignore | */.gitignore | *.md | docs/* | tests/full-runs | patches/* | \
		*.patch | */fixtures/* | *.csv | *.json | *.txt | *.svg | *.png | *.dat | *.log) return 0 ;;
	esac
	return 1
}
missing=$(git ls-files | while IFS= read -r f; do
	[ -f "$f" ] && ! spdx_exempt "$f" || continue
	head -n 3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0' || echo "$f"
done)
is "every source file names its licence in its first 3 lines (SPDX-License-Identifier: GPL-2.0)" \
	"$missing" ""
tap_done

# Shared shell helpers for p4dscope's host scripts. Source it; do not run it.

# Absolute path of the repository and of its git-ignored build directory.
P4D_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
P4D_BUILD=${P4D_BUILD:-$P4D_TOP/build}

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# One progress line for a long step, always shown (make's V=1 only widens commands).
step() {
	local tag=$1
	shift
	printf '  %-8s %s\n' "$tag" "$*" >&2
}

# The patch series, in order, and its identity (a hash of every patch file).
series_files() {
	local f=("$P4D_TOP"/patches/0*.patch)
	[ -e "${f[0]}" ] || return 0
	printf '%s\n' "${f[@]}"
}
series_id() {
	series_files | xargs -r cat | sha256sum | cut -d' ' -f1
}

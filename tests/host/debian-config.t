#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian-configuration kernels (scripts/build-kernel debian*): the configuration step
# refuses, naming the option, a fragment option that does not survive olddefconfig and an
# option that differs from Debian's file without a fragment setting it (run in a scratch
# build directory on the extracted 6.1 tree: configuration only, nothing is compiled);
# and, when make kernels-debian has built them, the three .configs differ only in what
# their names say.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
debian_config=$P4D_DEBIAN_CONFIG

# ---- the configuration step, with fragments that must fail -----------------------------
if [ ! -f "$P4D_TREE/.p4dscope-series" ]; then
	skip "build-kernel debian: the configuration checks" "no kernel tree: run 'make tree'"
elif [ ! -f "$debian_config" ]; then
	skip "build-kernel debian: the configuration checks" \
		"no $debian_config: run 'make deps' (linux-config-$P4D_KVER)"
else
	# A copy of the scripts and fragments, so the fragment can be spoiled; the real tree.
	mkdir -p "$tmp/top" "$tmp/build"
	cp -r scripts guest-image "$tmp/top/"
	ln -s "$P4D_TREE" "$tmp/build/linux-$P4D_KVER"
	# config_fails NAME WANT FRAGMENT-EDIT: build-kernel must stop in its configuration
	# step (within the time limit: it must never get to compiling) naming WANT.
	config_fails() {
		local name=$1 want=$2 rc
		cp guest-image/debian.config "$tmp/top/guest-image/debian.config"
		eval "$3"
		rm -rf "$tmp/build/kernel-$P4D_KVER"
		P4D_BUILD=$tmp/build P4D_SERIES=$PWD/patches/$P4D_KVER timeout 300 \
			"$tmp/top/scripts/build-kernel" debian >"$tmp/out" 2>&1
		rc=$?
		if [ $rc = 1 ] && grep -q "$want" "$tmp/out" && ! grep -q 'KERNEL ' "$tmp/out"; then
			ok "$name: stops before compiling, naming it"
		else
			not_ok "$name: stops before compiling, naming it" "exit $rc" "$(tail -n 5 "$tmp/out")"
		fi
	}
	# KASAN's software tags are arm64's: olddefconfig drops the option.
	config_fails "a fragment option that does not survive olddefconfig" \
		"did not survive olddefconfig.*CONFIG_KASAN_SW_TAGS=y" \
		'echo CONFIG_KASAN_SW_TAGS=y >>"$tmp/top/guest-image/debian.config"'
	# Without its line, VIRTIO_PCI_LIB still changes (VIRTIO_PCI selects it), unnamed.
	config_fails "an option that differs from Debian's file, set by no fragment" \
		"no fragment sets.*CONFIG_VIRTIO_PCI_LIB (m -> y)" \
		'sed -i "/^CONFIG_VIRTIO_PCI_LIB=y$/d" "$tmp/top/guest-image/debian.config"'
fi

# ---- the three built kernels: what their names say, nothing else ------------------------
# options FILE: its option lines, sorted ("not set" as =n).
options() {
	sed -n 's/^\(CONFIG_[A-Z0-9_]*=.*\)/\1/p; s/^# \(CONFIG_[A-Z0-9_]*\) is not set/\1=n/p' "$1" | sort
}
k=$P4D_KERNELS
if [ ! -f "$k/debian/.config" ] || [ ! -f "$k/debian-vanilla/.config" ] ||
	[ ! -f "$k/debian-no5level/.config" ]; then
	skip "the Debian kernels' .configs" "no Debian kernels: run 'make kernels-debian'"
else
	is "debian and debian-vanilla: the same .config" \
		"$(diff <(options "$k/debian/.config") <(options "$k/debian-vanilla/.config"))" ""
	is "debian and debian-no5level: only X86_5LEVEL and PGTABLE_LEVELS differ" \
		"$(diff <(options "$k/debian/.config") <(options "$k/debian-no5level/.config") |
			sed -n 's/^[<>] //p' | sort | tr '\n' ' ')" \
		"CONFIG_PGTABLE_LEVELS=4 CONFIG_PGTABLE_LEVELS=5 CONFIG_X86_5LEVEL=n CONFIG_X86_5LEVEL=y "
	# Every difference from Debian's file is an option debian.config sets, or the
	# compiler's name. An option absent from a file is not set there.
	unnamed=$(awk -F= 'FNR == 1 { file++ }
		file == 1 { named[$1] = 1; next }
		file == 2 { old[$1] = substr($0, length($1) + 2); next }
		{ new[$1] = substr($0, length($1) + 2) }
		END { for (o in old) if (!(o in new)) new[o] = "n"
			for (o in new) if (((o in old) ? old[o] : "n") != new[o] && !(o in named))
				print o }' \
		<(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=.*/\1/p' guest-image/debian.config;
		  echo CONFIG_CC_VERSION_TEXT) \
		<(xz -dc "$debian_config" | options /dev/stdin) <(options "$k/debian/.config") | sort)
	is "debian: every option that differs from Debian's file is set in debian.config" \
		"$unnamed" ""
fi
tap_done

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # its variables are for the scripts that source it
# Sourced by analysis/run and analysis/funcs/run, after scripts/lib.sh: the kernels make
# bench compares on the tree P4D_KVER names. Each configuration is built three ways:
# patched, vanilla, and a third kernel that answers the tree's own question. Up to 6.15
# that is the patched tree built with CONFIG_X86_5LEVEL=n ("compiled out"); from 6.16 the
# option is gone (upstream 7212b58d6d71), and on a tree that carries the exec RFC
# (patches/KVER/exec-rfc) the third kernel is the RFC's.
if [ -n "$(rfc_files)" ]; then
	third=exec-rfc
	# The RFC changes what 5-level paging does; no5lvl is the baseline it is held to.
	third_modes=(no5lvl 5)
else
	third=no5level
	# Booted on the same LA57 CPU as paging 5 (run-guest --la57-cpu), it runs 4-level.
	third_modes=(4)
fi
# The results of the default tree (lib.sh: 6.1, the tree of the published comparisons)
# are analysis/results/; another tree's are analysis/results/KVER/, its logs apart too.
if [ "$P4D_KVER" = 6.1 ]; then
	tree_suffix=
else
	tree_suffix=-$P4D_KVER
fi

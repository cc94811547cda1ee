#!/usr/bin/env bash
# One wall-time boot of the page-walk benchmark (analysis/run starts it with run-guest,
# without --icount): one pointer chase of chase.c, so that every chase starts from the
# same emulator state (QEMU grows its soft TLB as a boot goes on).
#
#   walk.sh [--quick] WALK low|high
#
# WALK:
#   random-sparse  2048 pages 16 GiB apart in random order: QEMU's soft TLB is
#                  direct-mapped, indexed by the page number modulo its size (2^22
#                  entries at most), so all of them collide and every step refills it.
#   random-dense   65536 contiguous pages (256 MiB) in random order: beyond the soft
#                  TLB's default 256 entries, but QEMU may grow it.
#   sequential     the dense set, every line in address order: one new page per 64
#                  steps. The control.
# high maps the working set at 1 << 48 (above 47 bits); a 4-level kernel ignores that.
# Prints "meta,..." and "chase,WALK,<chase row>" records (analysis/stats.py reads them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../../build/analysis
# Many short repetitions: on a busy host some of them run without being preempted.
ms=2 reps=150
if [ "${1:-}" = --quick ]; then
	reps=30
	shift
fi
[ $# -eq 2 ] || { echo "usage: walk.sh [--quick] WALK low|high" >&2; exit 2; }
walk=$1 placement=$2
case "$walk" in
random-sparse) args=(-p 2048 -s 16g random) ;;
random-dense) args=(-p 65536 random) ;;
sequential) args=(-p 65536 sequential) ;;
*) echo "walk.sh: unknown walk '$walk'" >&2; exit 2 ;;
esac
case "$placement" in
low) ;;
high) args=(-u "${args[@]}") ;;
*) echo "walk.sh: placement must be low or high" >&2; exit 2 ;;
esac

work=/tmp/p4dbench
mkdir -p $work
cp "$bin/chase" $work/
echo "meta,paging,${P4DSCOPE_PAGING:-?}"
$work/chase -t $ms -r $reps "${args[@]}" >$work/out
sed "s/^/chase,$walk,/" $work/out

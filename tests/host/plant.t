#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/lib/tracefs.sh's plant(), on the host: what tests/run-plants relies on. It changes
# exactly the named field of the named event (hex one page off, decimal off by one, a word
# replaced), only in the records of the scope when one is given, leaves everything else
# byte for byte, and says how many records it changed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/tracefs.sh

records='7 p4d_alloc mm=(____ptrval____) address=0x1000000000000 pfn=0x1865 init_mm=0 outcome=installed
8 p4d_alloc mm=(____ptrval____) address=0x1000000000000 pfn=0x1866 init_mm=0 outcome=raced
8 p4d_free mm=(____ptrval____) address=0x1000000000000 pfn=0x1865
9 kernel_pgd_sync start=0xff11000000000000 end=0xff11000007ffffff level=pgd copied=0 visited=7'
# planted PLANT: the records through plant() with P4DSCOPE_PLANT=PLANT; its count on fd 3.
planted() { P4DSCOPE_PLANT=$1 plant <<<"$records" 2>&3; }

exec 3>/dev/null
is "no plant: the records pass unchanged" "$(P4DSCOPE_PLANT='' plant <<<"$records")" "$records"
is "a hex field is one page off in every record of the event" \
	"$(planted p4d_alloc:pfn | diff <(echo "$records") - | grep '^>')" \
	"> 7 p4d_alloc mm=(____ptrval____) address=0x1000000000000 pfn=0x865 init_mm=0 outcome=installed
> 8 p4d_alloc mm=(____ptrval____) address=0x1000000000000 pfn=0x866 init_mm=0 outcome=raced"
is "a decimal field is off by one" "$(planted kernel_pgd_sync:visited | tail -n 1)" \
	"9 kernel_pgd_sync start=0xff11000000000000 end=0xff11000007ffffff level=pgd copied=0 visited=8"
is "a word is replaced" "$(planted kernel_pgd_sync:level | tail -n 1)" \
	"9 kernel_pgd_sync start=0xff11000000000000 end=0xff11000007ffffff level=planted copied=0 visited=7"
is "a scope limits it to the records that hold KEY=VALUE" \
	"$(planted p4d_alloc:pfn:outcome=raced | diff <(echo "$records") - | grep '^>')" \
	"> 8 p4d_alloc mm=(____ptrval____) address=0x1000000000000 pfn=0x866 init_mm=0 outcome=raced"
is "another event's field of the same name is left alone" \
	"$(planted p4d_alloc:address | grep ' p4d_free ')" "$(grep ' p4d_free ' <<<"$records")"
count() { P4DSCOPE_PLANT=$1 plant <<<"$records" 2>&1 >/dev/null; }
is "it counts the records it changed" "$(count p4d_alloc:pfn)" "# plant: 2 records changed by p4d_alloc:pfn"
is "a plant with no record to change says 0" "$(count p4d_alloc:pfn:outcome=nomem)" \
	"# plant: 0 records changed by p4d_alloc:pfn:outcome=nomem"
tap_done

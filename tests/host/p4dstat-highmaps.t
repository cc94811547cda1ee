#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# p4dstat -l, the listing of processes with mappings above 47 bits, on the host: it reads
# a fixture tree laid out like /proc (P4DSTAT_PROC, tests/host/fixtures/highmaps) whose
# maps hold mappings below, across and above 1 << 47, the vsyscall page, a process that
# went between readdir and read (no comm) and one the caller may not read, and every
# column is checked against values worked out by hand from those maps. Every run drops
# to an unprivileged user, which also shows the listing needs no privilege and no BPF.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/p4dstat-host.sh "p4dstat -l"

# A copy the unprivileged user can read, except process 400's maps (EACCES, as another
# user's /proc/PID/maps gives: fs/proc/base.c proc_mem_open()).
chmod 755 "$tmp"
cp -r tests/host/fixtures/highmaps "$tmp/proc"
chmod -R a+rX "$tmp/proc"
chmod 000 "$tmp/proc/400/maps"

# list ARG...: p4dstat's stdout in $tmp/out, stderr in $tmp/err, status in rc.
list() {
	(cd "$tmp" && P4DSTAT_PROC=$tmp/proc unprivileged "$p4dstat" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

header=$(printf '%7s %-16s %5s %14s %-17s %5s %4s' PID COMM MAPS KB HIGHEST PUD P4D)
list -l
is "p4dstat -l exits 0 with an unreadable and a vanished process" "$rc" 0
is "the first line is the header" "$(head -n 1 "$tmp/out")" "$header"
# Worked out from the fixture maps (5-level geometry: a PUD table per 512 GiB, a P4D
# table per 256 TiB; the first 256 TiB's P4D table is every process's own):
#  200: 4 KiB of 7ffffffff000-800000001000 is above 1 << 47 (512 GiB region 0x100),
#       4 + 8 KiB at 0x1000000000000 (region 0x200; 256 TiB region 1),
#       8 KiB across 0x2008000000000 (regions 0x400 and 0x401; 256 TiB region 2);
#       the vsyscall page is not the process's own.
#  700: one page just below TASK_SIZE_MAX, the top 256 TiB region (0xff).
# 1000: 2 MiB at 1 << 47: one PUD table, no P4D table beyond the first.
# 100 ends exactly at 1 << 47, 600 has no mappings (a kernel thread): neither is listed.
mapfile -t rows < <(tail -n +2 "$tmp/out" | awk '{ print $1, $2, $3, $4, $5, $6, $7 }')
is "one line per process with mappings above 47 bits, by PID" "${#rows[@]}" 3
is "process 200: 4 mappings, 24 KiB, highest end, 4 PUD and 2 P4D tables" "${rows[0]-}" \
	"200 highmap 4 24 0x2008000001000 4 2"
is "process 700: one page at the top of the 56-bit space" "${rows[1]-}" \
	"700 top 1 4 0xfffffffffff000 1 1"
is "process 1000: 2 MiB in the first 256 TiB, no P4D table of its own" "${rows[2]-}" \
	"1000 highmap2 1 2048 0x800000200000 1 0"
is "columns line up with the header" \
	"$(awk -v w=${#header} 'length($0) != w { print NR": "$0 }' "$tmp/out")" ""
is "stderr says which could not be read and which vanished" "$(cat "$tmp/err")" \
	"p4dstat: 1 process not read (PID 400: Permission denied); root can read every process
p4dstat: 1 process ended while being read"

list -l -p 200
is "-l -p 200: the header and process 200 only" \
	"$rc $(tail -n +2 "$tmp/out" | awk '{ print $1, $4 }') $(wc -c <"$tmp/err")" "0 200 24 0"
list --high-maps --pid 100
is "--high-maps --pid 100: nothing above 47 bits, only the header" \
	"$rc $(cat "$tmp/out") $(wc -c <"$tmp/err")" "0 $header 0"
list -l -p 300
is "-l -p 300 (gone): exit 0, says so" "$rc $(cat "$tmp/err")" "0 p4dstat: no process with PID 300"

(cd "$tmp" && P4DSTAT_PROC=$tmp/none unprivileged "$p4dstat" -l) >"$tmp/out" 2>"$tmp/err"
rc=$?
is "an unreadable proc directory: exit 1 and why" "$rc $(cat "$tmp/err")" \
	"1 p4dstat: cannot list the processes in $tmp/none: No such file or directory"

# The real /proc, unprivileged: the listing must not need root, BTF or BPF.
(cd "$tmp" && unprivileged "$p4dstat" -l) >"$tmp/out" 2>"$tmp/err"
rc=$?
is "p4dstat -l on this host's /proc as nobody: exit 0, the header first" \
	"$rc $(head -n 1 "$tmp/out")" "0 $header"
tap_done

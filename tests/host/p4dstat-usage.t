#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# p4dstat's argument parsing on the host: usage errors give one line and exit 2, --help
# exits 0. Every run drops to an unprivileged user (setpriv), so nothing here can load a
# BPF program into the host's kernel even if a check let the program go further: the
# last case shows that such a run stops at the privilege check.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/p4dstat-host.sh "p4dstat usage"

# run_case WANT-STATUS WANT-STDERR ARG...: one line on stderr, nothing on stdout.
run_case() {
	local want_rc=$1 want=$2 rc
	shift 2
	(cd "$tmp" && unprivileged "$p4dstat" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = "$want_rc" ] && [ "$(cat "$tmp/err")" = "$want" ] && [ ! -s "$tmp/out" ]; then
		ok "p4dstat $* -> exit $want_rc: $want"
	else
		not_ok "p4dstat $* -> exit $want_rc: $want" "exit $rc" "stderr: $(cat "$tmp/err")" \
			"stdout: $(head -c 300 "$tmp/out")"
	fi
}

hint="(see p4dstat --help)"
run_case 2 "p4dstat: unknown option '--bogus' $hint" --bogus
run_case 2 "p4dstat: unknown option '-z' $hint" -z
run_case 2 "p4dstat: unknown option '-Tz' $hint" -Tz
run_case 2 "p4dstat: option '-p' needs a value $hint" -p
run_case 2 "p4dstat: option '--pid' needs a value $hint" --pid
run_case 2 "p4dstat: bad PID 'abc': want a whole number, 1 or more $hint" -p abc
run_case 2 "p4dstat: bad PID '0': want a whole number, 1 or more $hint" -p 0
run_case 2 "p4dstat: bad interval '0': want a whole number, 1 or more $hint" 0
run_case 2 "p4dstat: bad interval '1.5': want a whole number, 1 or more $hint" 1.5
run_case 2 "p4dstat: bad interval 'x': want a whole number, 1 or more $hint" -T x
run_case 2 "p4dstat: bad count '0': want a whole number, 1 or more $hint" 1 0
run_case 2 "p4dstat: unexpected argument '3' $hint" 1 2 3
run_case 2 "p4dstat: bad --probes 'uprobe': want tracepoint, fentry or kprobe $hint" \
	--probes=uprobe
run_case 2 "p4dstat: bad --comms '0': want a whole number from 1 to 65536 $hint" -C --comms=0
# -c is the cgroup filter (libbpf-tools' meaning); the causes are -w.
run_case 2 "p4dstat: option '-c' needs a value $hint" -c
run_case 2 "p4dstat: option '--cgroup' needs a value $hint" --cgroup
run_case 2 "p4dstat: bad cgroup '': want a cgroup v2 directory $hint" -c ''
run_case 2 "p4dstat: option '--causes' takes no value $hint" --causes=yes
# -- CMD: counts one command and its descendants.
run_case 2 "p4dstat: no command after '--' $hint" --
run_case 2 "p4dstat: -p and a command are exclusive: count one or the other $hint" \
	-p 1 -- true

(cd "$tmp" && unprivileged "$p4dstat" --help) >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && [ ! -s "$tmp/err" ] && grep -q '^USAGE: p4dstat \[-T\] \[-j\] \[-p PID\] \[-c CG\] \[-C\] \[-w\] \[-L\] \[interval \[count\]\]$' "$tmp/out" &&
	grep -q '^EXAMPLES:$' "$tmp/out" && grep -q -- '--probes=KIND' "$tmp/out" &&
	grep -q -- '-c, --cgroup=CG' "$tmp/out" && grep -q -- '-w, --causes' "$tmp/out"; then
	ok "p4dstat --help: USAGE, EXAMPLES and the options on stdout, exit 0"
else
	not_ok "p4dstat --help: USAGE, EXAMPLES and the options on stdout, exit 0" "exit $rc" \
		"$(head -c 500 "$tmp/out")" "$(cat "$tmp/err")"
fi
(cd "$tmp" && unprivileged "$p4dstat" --version) >"$tmp/out" 2>"$tmp/err"
rc=$?
is "p4dstat --version: one line on stdout, exit 0" "$rc $(cat "$tmp/out")$(cat "$tmp/err")" \
	"0 p4dstat 4.0 (p4dscope)"
run_case 1 "p4dstat: needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)" 1 1
# Refused before CMD is started: it must not run uncounted.
run_case 1 "p4dstat: needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)" \
	-- touch "$tmp/ran"
is "p4dstat -- CMD without root: CMD did not run" "$([ -e "$tmp/ran" ] && echo ran)" ""

tap_done

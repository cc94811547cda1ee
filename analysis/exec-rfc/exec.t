#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# exec's stack ABI, the same on every paging mode, with and without the exec RFC
# (analysis/exec-rfc): where the new stack ends (fs/exec.c setup_arg_pages(), x86's
# STACK_TOP and STACK_RND_MASK), how much argument space exec gives for a stack rlimit
# (bprm_stack_limits(): a quarter of the rlimit, at most 3/4 of _STK_LIM, at least
# ARG_MAX; MAX_ARG_STRLEN per string), and that the strings arrive intact after the
# temporary stack's move. Draft: runs from tests/guest once the RFC has its flavour.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../../tests/lib/guest.sh

arch=$(uname -m)
stack_top=0x7ffffffff000		# STACK_TOP: DEFAULT_MAP_WINDOW, (1 << 47) - 4 KiB
rnd_span=$(((0x3fffff << 12) + 8192))	# STACK_RND_MASK pages + arch_align_stack()'s 8 KiB

# stack_end [SETARCH-FLAG...]: the end of [stack] in a freshly exec'd program.
stack_end() {
	setarch "$arch" "$@" cat /proc/self/maps |
		sed -n 's/^[0-9a-f]*-\([0-9a-f]*\) .*\[stack\]$/0x\1/p'
}

## 1. Where the stack ends.
is "setarch -R: the stack ends at STACK_TOP" "$(stack_end -R)" "$stack_top"
is "setarch -R -L (legacy mmap layout): the stack ends at STACK_TOP" \
	"$(stack_end -R -L)" "$stack_top"
outside=0 distinct=$(for _ in $(seq 32); do stack_end; done | sort -u | tee "$tmp/ends" | wc -l)
while read -r end; do
	if ((end > stack_top || end < stack_top - rnd_span || end & 0xfff)); then
		outside=$((outside + 1))
		echo "# stack end $end outside [STACK_TOP - $rnd_span, STACK_TOP] or unaligned"
	fi
done <"$tmp/ends"
is "randomized, 32 execs: every stack end page-aligned, within STACK_RND_MASK pages below STACK_TOP" \
	"$outside" 0
# 2^22 possible ends: 32 equal ones would mean randomization is off.
check "randomized, 32 execs: the ends differ ($distinct distinct)" test "$distinct" -gt 1

## 2. Argument space for a stack rlimit.
# argexec STACK_KIB STRINGS LEN: exec /bin/true, from a shell with an empty environment
# and that stack limit (KiB or unlimited), with STRINGS arguments of LEN bytes each;
# prints "ran" or "E2BIG" or the shell's message.
argexec() {
	env -i PATH=/usr/bin:/bin bash --norc --noprofile -c '
		ulimit -s "$1" || exit 3
		s=$(head -c "$3" /dev/zero | tr "\0" x) args=()
		for ((i = 0; i < $2; i++)); do args+=("$s"); done
		if err=$(/bin/true "${args[@]}" 2>&1); then
			echo ran
		elif [[ $err == *"Argument list too long"* ]]; then
			echo E2BIG
		else
			echo "$err"
		fi' _ "$@"
}
# The limit, with 64 KiB strings (65535 bytes and the NUL) one string below and above.
is "8 MiB stack: 31 x 64 KiB of arguments (under 2 MiB, a quarter) exec" "$(argexec 8192 31 65535)" ran
is "8 MiB stack: 33 x 64 KiB (over 2 MiB): E2BIG" "$(argexec 8192 33 65535)" E2BIG
is "unlimited stack: 95 x 64 KiB (under 6 MiB, 3/4 of _STK_LIM) exec" \
	"$(argexec unlimited 95 65535)" ran
is "unlimited stack: 97 x 64 KiB (over 6 MiB): E2BIG" "$(argexec unlimited 97 65535)" E2BIG
is "256 KiB stack: 1 x 64 KiB exec (ARG_MAX's 128 KiB floor)" "$(argexec 256 1 65535)" ran
is "256 KiB stack: 3 x 64 KiB (over 128 KiB): E2BIG, the shell lives on" \
	"$(argexec 256 3 65535)" E2BIG
is "one string of MAX_ARG_STRLEN (131072 bytes with its NUL) execs" "$(argexec 8192 1 131071)" ran
is "one string of 131073 bytes with its NUL: E2BIG" "$(argexec 8192 1 131072)" E2BIG

## 3. The strings arrive intact, moved or not (setarch -R: no move with the RFC).
# intact [SETARCH-FLAG...]: argv as the new program sees it, against what was passed: a
# near-limit set of long strings, then 100,000 short ones.
intact() {
	local long=() short=() i sent got name
	for ((i = 0; i < 30; i++)); do long+=("$(printf '%065000d' "$i")"); done
	for ((i = 0; i < 100000; i++)); do short+=("$i"); done
	for name in long short; do
		local -n a=$name
		sent=$(printf '%s\n' "${a[@]}" | md5sum)
		got=$(setarch "$arch" "$@" sh -c 'echo $#; printf "%s\n" "$@" | md5sum' _ "${a[@]}" |
			tr '\n' ' ')
		is "${*:-randomized}: ${#a[@]} $name strings arrive intact" "$got" "${#a[@]} $sent "
		unset -n a
	done
}
intact
intact -R

tap_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# exec's stack ABI, the same on every paging mode, with and without the exec RFC
# (patches/KVER/exec-rfc): where the new stack ends (fs/exec.c setup_arg_pages(), x86's
# STACK_TOP and STACK_RND_MASK), how much argument space exec gives for a stack rlimit
# (bprm_stack_limits(): a quarter of the rlimit, at most 3/4 of _STK_LIM, at least
# ARG_MAX; MAX_ARG_STRLEN per string), that the strings arrive intact after the
# temporary stack's move, and where a 32-bit (compat) process's stack ends, on kernels
# with IA32_EMULATION (Debian's; the small guest kernel has none, and the checks skip).
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

## 4. A 32-bit process (compat): its stack below 4 GiB. STACK_TOP is IA32_PAGE_OFFSET,
# 0xffffe000, or 0xc0000000 with ADDR_LIMIT_3GB (setarch -3); STACK_RND_MASK is 0x7ff
# pages for it. maps32 (tests/workloads/maps32.S) prints its own maps.
# stack_end32 [SETARCH-FLAG...]: the end of maps32's [stack], or what exec said.
stack_end32() {
	local out
	out=$(setarch "$arch" "$@" "$bin/maps32" 2>&1) || { echo "exec failed: $out"; return; }
	sed -n 's/^[0-9a-f]*-\([0-9a-f]*\) .*\[stack\]$/0x\1/p' <<<"$out"
}
if ! out=$("$bin/maps32" 2>&1 >/dev/null) && [[ $out == *"Exec format error"* ]]; then
	for c in "setarch -R" "setarch -3 -R" "randomized"; do
		skip "32-bit exec, $c: the stack below 4 GiB" "no IA32_EMULATION in this kernel"
	done
else
	is "32-bit exec, setarch -R: the stack ends at IA32_PAGE_OFFSET" "$(stack_end32 -R)" 0xffffe000
	is "32-bit exec, setarch -3 -R: the stack ends at 3 GiB" "$(stack_end32 -3 -R)" 0xc0000000
	outside=0
	for _ in $(seq 16); do
		end=$(stack_end32)
		if ! [[ $end == 0x* ]] || ((end > 0xffffe000 || end < 0xffffe000 - (0x7ff << 12) - 8192)); then
			outside=$((outside + 1))
			echo "# 32-bit stack end $end outside [0xffffe000 - 8 MiB - 8 KiB, 0xffffe000]"
		fi
	done
	is "32-bit exec, randomized, 16 execs: every stack end within STACK_RND_MASK pages of 4 GiB" \
		"$outside" 0
fi

## 5. A setuid exec (AT_SECURE). begin_new_exec() clears the personality flags of
# PER_CLEAR_ON_SETID (ADDR_NO_RANDOMIZE, ADDR_COMPAT_LAYOUT) and caps the stack rlimit at
# _STK_LIM before the layout is chosen: run by nobody under setarch -R -L with an
# unlimited stack, a setuid-root cat gets a randomized stack and the top-down mmap
# layout, where a plain copy gets STACK_TOP and the legacy layout (libc at
# TASK_UNMAPPED_BASE, a third of the 47-bit window).
suid=$tmp/suid
mkdir "$suid" && chmod 755 "$tmp" "$suid" && cp /bin/cat "$suid/cat" && cp /bin/cat "$suid/cat-suid" &&
	chmod 4755 "$suid/cat-suid"
# layout_as_nobody PROGRAM: "STACK LAYOUT" of PROGRAM reading its own maps as nobody:
# STACK fixed (ends at STACK_TOP) or randomized, LAYOUT legacy (libc below 64 TiB) or
# top-down.
layout_as_nobody() {
	bash -c 'ulimit -s unlimited && exec setpriv --reuid=65534 --regid=65534 --clear-groups \
		setarch "$1" -R -L "$2" /proc/self/maps' _ "$arch" "$1" | awk -v top="$stack_top" '
		/\[stack\]$/ { split($1, r, "-"); stack = ("0x" r[2] == top) ? "fixed" : "randomized" }
		/libc[.-]/ && !libc { split($1, r, "-"); libc = r[1] }
		END { printf "%s %s\n", stack, (length(libc) < 12 || libc < "400000000000") ? "legacy" : "top-down" }'
}
is "setuid exec by nobody, setarch -R -L, unlimited stack: plain cat keeps both flags" \
	"$(layout_as_nobody "$suid/cat")" "fixed legacy"
is "... a setuid-root cat: randomized stack, top-down layout (PER_CLEAR_ON_SETID, _STK_LIM)" \
	"$(layout_as_nobody "$suid/cat-suid")" "randomized top-down"

## 6. Upstream's exec selftests, from this kernel's tree (tests/validate/build-selftests:
# build/selftests-KVER/exec): each must exit 0. They write beside themselves (execveat
# renames its own files), so they run from a copy in $tmp. One case needs what the 6.12
# and 7.3 guest kernels leave out: non-regular's sock.exec_errno makes an AF_INET socket,
# and those kernels have no IPv4 (guest-image/kernel-KVER.config). There, non-regular
# must fail that case only, and every other.
st=$top/build/selftests-$(uname -r | cut -d. -f1,2)/exec
no_inet=0
python3 -c 'import socket; socket.socket(socket.AF_INET)' 2>/dev/null || no_inet=1
if [ ! -x "$st/execveat" ]; then
	not_ok "upstream exec selftests are built" "no $st/execveat: run 'make tools'"
else
	cp -a "$st" "$tmp/selftests-exec"
	for t in execveat non-regular recursion-depth null-argv binfmt_script.py \
		load_address.{,static.}0x{1000,200000,1000000}; do
		out=$(cd "$tmp/selftests-exec" && timeout 120 "./$t" 2>&1)
		rc=$?
		name="upstream exec selftest $t: exit 0"
		if [ "$t:$no_inet" = non-regular:1 ]; then
			name="upstream exec selftest non-regular: every case but sock.exec_errno (no IPv4) passes"
			failed=$(grep -E '^not ok ' <<<"$out" | sed -E 's/^not ok [0-9]+ //' | tr '\n' ' ')
			[ "$failed" != "sock.exec_errno " ] || rc=0
			grep -qE '^ok [0-9]+ file\.' <<<"$out" || rc=1
		fi
		if [ $rc -eq 0 ]; then
			ok "$name"
		else
			not_ok "$name" "exit $rc; its last lines:"
			tail -n 20 <<<"$out" | sed 's/^/#   /'
		fi
	done
fi

tap_done

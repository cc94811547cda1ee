# SPDX-License-Identifier: GPL-2.0
# p4dscope: make x86-64 five-level paging observable. See README.md.
# `make run` and `make test` work from a fresh clone; V=1 shows full commands.
SHELL := /bin/bash
.DELETE_ON_ERROR:
.SUFFIXES:

V ?= 0
export V
# The Debian kernel tree to patch, build and test: 6.1 or 6.12 (patches/KVER).
KVER ?= 6.1
export P4D_KVER := $(KVER)
# Every tree with a series: make test-full tests them all.
TREES := $(patsubst patches/%/,%,$(wildcard patches/*/))
Q := $(if $(filter 1,$(V)),,@)
msg = $(if $(Q),@printf '  %-8s %s\n' '$(1)' '$(2)' >&2)
# Each phase of a run prints when it starts and ends and is recorded in one log per
# top-level make (or per CI run: .ci/run sets it), whose table closes the tests' output.
# Expanded once: every phase of one make run goes to the same log.
ifndef P4D_PHASE_LOG
P4D_PHASE_LOG := $(CURDIR)/build/phases/$(shell date +%Y%m%d-%H%M%S)-$(shell echo $$PPID).log
endif
export P4D_PHASE_LOG
PHASE := scripts/phase
# The test runner stops its guests (SIGTERM) when make dies, however make was stopped:
# make passes no signal on to its children itself.
RUN_ALL := setpriv --pdeathsig TERM -- tests/run-all

BUILD := build
BIN := $(BUILD)/bin
# What is built against a tree's BTF (p4dstat, racehold): one folder per tree.
TOOLS := $(BUILD)/tools-$(KVER)
CC := gcc
WORKLOAD_CFLAGS := -O2 -g -Wall -Wextra -Werror -Iinclude
WORKLOADS := $(patsubst tests/workloads/%.c,$(BIN)/%,$(wildcard tests/workloads/*.c)) \
	$(patsubst tests/workloads/%.S,$(BIN)/%,$(wildcard tests/workloads/*.S))

.PHONY: all deps tree kernel kernel-vanilla kernel-debug kernel-no5level image tools \
	kernel-debian kernel-debian-vanilla kernel-debian-no5level kernels-debian \
	kernel-exec-rfc kernel-debian-exec-rfc kernels-full \
	build-tools workloads run test test-full test-guest test-plants test-debug bench \
	check-patches clean install uninstall check-prefix deb report

all: kernel image tools

deps:
	$(Q)$(PHASE) deps scripts/deps

tree: deps
	$(Q)$(PHASE) "tree $(KVER)" scripts/prepare-tree

# A kernel is rebuilt only when its inputs change (scripts/build-kernel's key).
kernel: tree
	$(Q)$(PHASE) "kernel $(KVER)/patched" scripts/build-kernel patched >/dev/null

kernel-vanilla: tree
	$(Q)$(PHASE) "kernel $(KVER)/vanilla" scripts/build-kernel vanilla >/dev/null

kernel-debug: tree
	$(Q)$(PHASE) "kernel $(KVER)/debug" scripts/build-kernel debug >/dev/null

# The patched kernel with CONFIG_X86_5LEVEL=n: the "compiled out" kernel of make bench and
# make test-full. make test compiles only the series' objects so (tests/host/no5level-build.t).
kernel-no5level: tree
	$(Q)$(PHASE) "kernel $(KVER)/no5level" scripts/build-kernel no5level >/dev/null

# The kernel people run: Debian's configuration of its cloud kernel (linux-config-KVER),
# patched, vanilla and with CONFIG_X86_5LEVEL=n, for make bench's second column set. Not
# part of make test or CI: each cold build takes long (docs/development.md).
kernel-debian: tree
	$(Q)scripts/build-kernel debian >/dev/null

kernel-debian-vanilla: tree
	$(Q)scripts/build-kernel debian-vanilla >/dev/null

kernel-debian-no5level: tree
	$(Q)scripts/build-kernel debian-no5level >/dev/null

# The exec RFC on top of the series (patches/KVER/exec-rfc, 7.3): uname -r ends in
# -exec-rfc. make test-full boots it (tests/run-all KVER:exec-rfc), make bench measures it.
kernel-exec-rfc: tree
	$(Q)$(PHASE) "kernel $(KVER)/exec-rfc" scripts/build-kernel exec-rfc >/dev/null

kernel-debian-exec-rfc: tree
	$(Q)scripts/build-kernel debian-exec-rfc >/dev/null

# 7.3 cannot compile 5-level paging out (upstream 7212b58d6d71): no no5level kernels.
NO5LEVEL := $(if $(filter 7.3,$(KVER)),,no5level)
EXEC_RFC := $(if $(wildcard patches/$(KVER)/exec-rfc/0*.patch),exec-rfc)
kernels-debian: kernel-debian kernel-debian-vanilla $(addprefix kernel-debian-,$(NO5LEVEL) $(EXEC_RFC))

image: deps
	$(Q)$(PHASE) image scripts/build-initramfs

tools:
	$(Q)$(PHASE) "tools $(KVER)" $(MAKE) -s --no-print-directory build-tools

build-tools: workloads
	$(Q)if [ -f bpf/Makefile ]; then $(MAKE) -s -C bpf; fi
	$(Q)if [ -f tests/validate/Makefile ]; then $(MAKE) -s -C tests/validate; fi
	$(Q)$(MAKE) -s -C la57check
	$(Q)$(MAKE) -s -C analysis/walkmodel
	$(Q)$(MAKE) -s -C analysis/walkmodel/workloads

workloads: $(WORKLOADS)

# Static: its _start takes the exit hook from rdx (la57-thread-exec says why that matters).
$(BIN)/la57-exec-target: WORKLOAD_CFLAGS += -static
# A correct program that only AddressSanitizer's assumptions break above 47 bits.
$(BIN)/la57-asan: WORKLOAD_CFLAGS += -fsanitize=address
# No libc, no mmap: nothing la57-check can move.
$(BIN)/la57-nommap: WORKLOAD_CFLAGS += -static -nostdlib -fno-stack-protector
# Its marked mmap lengths are exechold's (tests/validate/exechold.h).
$(BIN)/la57-thread-exec: tests/validate/exechold.h

$(BIN)/%: tests/workloads/%.c include/p4d_layout.h | $(BIN)
	$(call msg,CC,$@)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -o $@ $<

# i386 programs without libc (exec.t's compat checks): binutils' i386 support is enough,
# no 32-bit libc is needed.
$(BIN)/%: tests/workloads/%.S | $(BIN)
	$(call msg,AS,$@)
	$(Q)$(CC) -m32 -nostdlib -static -o $@ $<

$(BIN):
	$(Q)mkdir -p $@

run: kernel image tools
	$(Q)scripts/demo

# The tier tests/tier gives the tree (tests/run-all): the vanilla kernel only for a full run.
test: kernel image tools
	$(Q)tests/tier $(KVER) suite | grep -q '^fast' || \
		$(MAKE) --no-print-directory kernel-vanilla KVER=$(KVER)
	$(Q)$(RUN_ALL)

# Everything, on every tree: the host tests, the whole suite on all three modes (the tool
# tests on no5lvl too), the vanilla kernels' suites, the compiled-out kernels, the plants
# CI subset, and fresh fuzz seeds. docs/running.md says how long it takes.
test-full:
	$(Q)for k in $(TREES); do \
		$(MAKE) --no-print-directory kernels-full image tools KVER=$$k || exit; \
	done
	$(Q)P4DSCOPE_FUZZ_SEED=fresh $(RUN_ALL) \
		$(foreach k,$(TREES),host:$(k) $(k):5 $(k):4 $(k):no5lvl:all $(k):vanilla $(k):plants \
			$(if $(wildcard patches/$(k)/exec-rfc/0*.patch),$(k):exec-rfc))

# Every small kernel of a tree that make test-full boots or builds.
kernels-full: kernel kernel-vanilla $(addprefix kernel-,$(NO5LEVEL) $(EXEC_RFC))

# The in-guest suite alone, on MODES (default all three; no5lvl without the tool tests).
MODES ?= 5 4 no5lvl
test-guest: kernel image tools
	$(Q)$(RUN_ALL) --guest $(MODES)

clean:
	$(Q)rm -rf $(BUILD)/bin $(BUILD)/tools-* $(BUILD)/analysis $(BUILD)/selftests-* $(BUILD)/walkmodel $(BUILD)/kernel-* $(BUILD)/initramfs.cpio $(BUILD)/run $(BUILD)/out

# Both trees, or the one KVER= names on the command line.
check-patches: deps
	$(Q)scripts/check-patches $(if $(filter command line,$(origin KVER)),$(KVER))

# QUICK=1: a short run that only proves the programs work (make test runs it), without
# the Debian-configuration kernels the full run measures too.
bench: kernel kernel-vanilla $(addprefix kernel-,$(NO5LEVEL) $(EXEC_RFC)) image tools \
	$(if $(QUICK),,kernels-debian)
	$(Q)analysis/run $(if $(QUICK),--quick)

# Every report whose records are committed (analysis/results/*/records/), regenerated in
# place with no guest run; tests/host/analysis/report.t checks that nothing changes.
report:
	$(Q)analysis/report/regenerate

# Faults planted in every event field and kernel mutants of the series: the event tests
# must catch each (tests/run-plants), on 5-level and 4-level boots (MODE=5 for one).
MODE ?= 5 4
test-plants: kernel image tools
	$(Q)tests/run-plants $(MODE)

# SUBSET=ci: the short named subset (tests/run-debug --ci).
test-debug: kernel-debug image tools
	$(Q)tests/run-debug $(if $(filter ci,$(SUBSET)),--ci)

# make install PREFIX=/usr/local DESTDIR=DIR: the tools `make tools` built, where a
# distribution puts them (docs/running.md says why there); it builds nothing and writes
# nothing outside DESTDIR. make uninstall removes exactly the files install put there.
PREFIX ?= /usr/local
DESTDIR ?=
LA57_LIB := $(PREFIX)/lib/p4dscope
BT_TOOLS := $(PREFIX)/share/bpftrace/tools
# la57-check runs from a copy of the layout it expects: its scripts, la57check/'s guest
# half and build/bin/la57-place, in a directory of its own off PATH.
LA57_FILES := scripts/la57-check scripts/lib.sh scripts/run-guest la57check/collect \
	$(wildcard la57check/*.sh)
BT_FILES := $(wildcard bpf/bt/*.bt)
BT_EXAMPLES := $(wildcard bpf/bt/*_example.txt)
# The scripts share a folder with every other bpftrace tool, where names such as window.bt
# could clash: installed as p4d-window.bt, and their text says so (BT_RENAME). p4d- is
# short, says what the script observes, and starts no upstream bpftrace tool's name. The
# repository keeps the short names its tests and docs use.
BT_PREFIX := p4d-
BT_RENAME := -E $(foreach n,$(basename $(notdir $(BT_FILES))),\
	-e 's,(bpf/bt/)?\<$(n)(\.bt|_example\.txt)\>,$(BT_PREFIX)$(n)\2,g')
INSTALLED := $(PREFIX)/sbin/p4dstat $(PREFIX)/bin/la57-check \
	$(PREFIX)/share/man/man8/p4dstat.8 $(PREFIX)/share/man/man8/la57-check.8 \
	$(PREFIX)/share/doc/p4dscope/p4dstat_example.txt \
	$(addprefix $(LA57_LIB)/,$(LA57_FILES)) $(LA57_LIB)/build/bin/la57-place \
	$(addprefix $(BT_TOOLS)/$(BT_PREFIX),$(notdir $(BT_FILES))) \
	$(addprefix $(BT_TOOLS)/doc/$(BT_PREFIX),$(notdir $(BT_EXAMPLES)))
# Directories only p4dscope puts files in, deepest first: uninstall removes them.
OWN_DIRS := $(LA57_LIB)/build/bin $(LA57_LIB)/build $(LA57_LIB)/la57check \
	$(LA57_LIB)/scripts $(LA57_LIB) $(PREFIX)/share/doc/p4dscope

# PREFIX ends up in no file, but a relative one would land relative to where make runs.
check-prefix:
	$(Q)case '$(PREFIX)' in /*) ;; *) echo "make: PREFIX must be an absolute path, not '$(PREFIX)'" >&2; exit 2 ;; esac

install: check-prefix
	$(Q)for f in $(TOOLS)/p4dstat $(BIN)/la57-place; do \
		[ -x $$f ] || { echo "make install: no $$f: run 'make tools KVER=$(KVER)' first" >&2; exit 1; }; \
	done
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 755 $(TOOLS)/p4dstat $(DESTDIR)$(PREFIX)/sbin/p4dstat
	$(Q)install -D -m 644 bpf/p4dstat.8 $(DESTDIR)$(PREFIX)/share/man/man8/p4dstat.8
	$(Q)install -D -m 644 la57check/la57-check.8 $(DESTDIR)$(PREFIX)/share/man/man8/la57-check.8
	$(Q)install -D -m 644 bpf/p4dstat_example.txt \
		$(DESTDIR)$(PREFIX)/share/doc/p4dscope/p4dstat_example.txt
	$(Q)for f in $(LA57_FILES); do \
		install -D -m $$([ -x $$f ] && echo 755 || echo 644) $$f $(DESTDIR)$(LA57_LIB)/$$f || exit; \
	done
	$(Q)install -D -m 755 $(BIN)/la57-place $(DESTDIR)$(LA57_LIB)/build/bin/la57-place
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin
	$(Q)printf '%s\n' '#!/bin/sh' \
		'# la57-check, installed by p4dscope: the script lives in ../lib/p4dscope.' \
		'exec "$$(dirname "$$(readlink -f "$$0")")/../lib/p4dscope/scripts/la57-check" "$$@"' \
		>$(DESTDIR)$(PREFIX)/bin/la57-check
	$(Q)chmod 755 $(DESTDIR)$(PREFIX)/bin/la57-check
	$(Q)install -d $(DESTDIR)$(BT_TOOLS)/doc
	$(Q)for f in $(BT_FILES); do \
		sed $(BT_RENAME) $$f >$(DESTDIR)$(BT_TOOLS)/$(BT_PREFIX)$${f##*/} && \
		chmod 755 $(DESTDIR)$(BT_TOOLS)/$(BT_PREFIX)$${f##*/} || exit; \
	done
	$(Q)for f in $(BT_EXAMPLES); do \
		sed $(BT_RENAME) $$f >$(DESTDIR)$(BT_TOOLS)/doc/$(BT_PREFIX)$${f##*/} && \
		chmod 644 $(DESTDIR)$(BT_TOOLS)/doc/$(BT_PREFIX)$${f##*/} || exit; \
	done

# make deb: build/deb/p4dscope-tools_VERSION_amd64.deb, make install PREFIX=/usr's files as
# a Debian binary package (packaging/deb/), checked by lintian: scripts/build-deb. It
# installs the Debian packages it needs itself (scripts/deps: dpkg-dev, lintian), as make
# run does, and builds only the packaged programs: no kernel tree is needed.
deb: deps
	$(Q)$(MAKE) -s --no-print-directory -C bpf
	$(Q)$(MAKE) -s --no-print-directory -C la57check
	$(Q)$(PHASE) deb scripts/build-deb

uninstall: check-prefix
	$(call msg,REMOVE,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	$(Q)for d in $(addprefix $(DESTDIR),$(OWN_DIRS)); do \
		[ ! -d $$d ] || rmdir $$d || exit; \
	done
	$(Q)rmdir --ignore-fail-on-non-empty $(DESTDIR)$(BT_TOOLS)/doc $(DESTDIR)$(BT_TOOLS) \
		$(DESTDIR)$(PREFIX)/share/bpftrace 2>/dev/null || true

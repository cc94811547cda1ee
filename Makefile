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
Q := $(if $(filter 1,$(V)),,@)
msg = $(if $(Q),@printf '  %-8s %s\n' '$(1)' '$(2)' >&2)

BUILD := build
BIN := $(BUILD)/bin
CC := gcc
WORKLOAD_CFLAGS := -O2 -g -Wall -Wextra -Werror -Iinclude
WORKLOADS := $(patsubst tests/workloads/%.c,$(BIN)/%,$(wildcard tests/workloads/*.c))

.PHONY: all deps tree kernel kernel-vanilla kernel-debug kernel-no5level image tools \
	kernel-debian kernel-debian-vanilla kernel-debian-no5level kernels-debian \
	workloads run test test-guest test-plants test-debug bench check-patches clean

all: kernel image tools

deps:
	$(Q)scripts/deps

tree: deps
	$(Q)scripts/prepare-tree

kernel: tree
	$(Q)scripts/build-kernel patched >/dev/null

kernel-vanilla: tree
	$(Q)scripts/build-kernel vanilla >/dev/null

kernel-debug: tree
	$(Q)scripts/build-kernel debug >/dev/null

# The patched kernel with CONFIG_X86_5LEVEL=n: make bench's "compiled out" kernel.
kernel-no5level: tree
	$(Q)scripts/build-kernel no5level >/dev/null

# The kernel people run: Debian's configuration of its cloud kernel (linux-config-KVER),
# patched, vanilla and with CONFIG_X86_5LEVEL=n, for make bench's second column set. Not
# part of make test or CI: each cold build takes long (docs/development.md).
kernel-debian: tree
	$(Q)scripts/build-kernel debian >/dev/null

kernel-debian-vanilla: tree
	$(Q)scripts/build-kernel debian-vanilla >/dev/null

kernel-debian-no5level: tree
	$(Q)scripts/build-kernel debian-no5level >/dev/null

kernels-debian: kernel-debian kernel-debian-vanilla kernel-debian-no5level

image: deps
	$(Q)scripts/build-initramfs

tools: workloads
	$(Q)if [ -f bpf/Makefile ]; then $(MAKE) -s -C bpf; fi
	$(Q)if [ -f tests/validate/Makefile ]; then $(MAKE) -s -C tests/validate; fi
	$(Q)$(MAKE) -s -C la57check
	$(Q)$(MAKE) -s -C analysis/walkmodel
	$(Q)$(MAKE) -s -C analysis/walkmodel/workloads

workloads: $(WORKLOADS)

$(BIN)/%: tests/workloads/%.c include/p4d_layout.h | $(BIN)
	$(call msg,CC,$@)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -o $@ $<

$(BIN):
	$(Q)mkdir -p $@

run: kernel image tools
	$(Q)scripts/demo

test: kernel kernel-vanilla image tools
	$(Q)tests/run-all

# The in-guest suite alone, on MODES (default all three): CI runs 6.12's 5 and 4.
MODES ?= 5 4 no5lvl
test-guest: kernel image tools
	$(Q)tests/run-all --guest $(MODES)

clean:
	$(Q)rm -rf $(BUILD)/bin $(BUILD)/bpf $(BUILD)/analysis $(BUILD)/selftests-* $(BUILD)/walkmodel $(BUILD)/kernel-* $(BUILD)/initramfs.cpio $(BUILD)/run $(BUILD)/out

# Both trees, or the one KVER= names on the command line.
check-patches: deps
	$(Q)scripts/check-patches $(if $(filter command line,$(origin KVER)),$(KVER))

# QUICK=1: a short run that only proves the programs work (make test runs it).
bench: kernel kernel-vanilla kernel-no5level image tools
	$(Q)analysis/run $(if $(QUICK),--quick)

# A fault planted in each event field, one boot each: the event tests must fail on every
# one (tests/run-plants; MODE=4 or no5lvl for those boots).
MODE ?= 5
test-plants: kernel image tools
	$(Q)tests/run-plants $(MODE)

# SUBSET=ci: the short named subset (tests/run-debug --ci).
test-debug: kernel-debug image tools
	$(Q)tests/run-debug $(if $(filter ci,$(SUBSET)),--ci)

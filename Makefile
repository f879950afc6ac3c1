# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# wookie: build the module and the provider, install them, and test.
#   make                 module (build/module/<kver>/wookie.ko) and provider
#   make install         module, provider and wookie.driver (DESTDIR= to stage)
#   make check           lint, host unit tests, KUnit, VM tests; ends "N passed, N failed"
#   make check-kernels   the VM tests on Debian's 6.1 and 6.12 kernels
#   make deb             wookie-dkms and wookie-provider packages (build/deb/)
#   make bench           perftest matrix, wookie beside rdma_rxe (scripts/bench)
#   make soak / fuzz     the long soak and fuzzer runs (-debug: sanitizer kernel)
#   make demo            build, boot the VM, create a device, ibv_devinfo -v
# See README.md.

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build

# Debian 12's 6.1 kernel by default; KVER=6.12 (or a release, such as
# 6.12.117+deb12-amd64) builds for the other line, KDIR= against another
# tree.  The pinned releases of the two lines are scripts/lib.sh's.
KVER_61 := $(shell . scripts/lib.sh && echo $$WOOKIE_KVER_61)
KVER_612 := $(shell . scripts/lib.sh && echo $$WOOKIE_KVER_612)
KVER ?= $(KVER_61)
override KVER := $(or $(if $(filter 6.1,$(KVER)),$(KVER_61)),$(if $(filter 6.12,$(KVER)),$(KVER_612)),$(KVER))
KDIR ?= /lib/modules/$(KVER)/build
# The release the tree's kernel reports as uname -r (Debian's kernel.release differs).
MODULE_KVER := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
		$(KDIR)/include/generated/utsrelease.h 2>/dev/null || echo $(KVER))
MODULE_DIR := $(BUILD)/module/$(MODULE_KVER)
MODULE := $(MODULE_DIR)/wookie.ko

PROVIDER_DIR := $(BUILD)/provider
PROVIDER := $(PROVIDER_DIR)/libwookie-rdmav34.so
# Where Debian's libibverbs looks for providers and their .driver files.
IBVERBS_PROVIDER_DIR ?= /usr/lib/x86_64-linux-gnu/libibverbs
IBVERBS_CONFIG_DIR ?= /etc/libibverbs.d

DESTDIR ?=

MODULE_SOURCES := Kbuild $(shell find kernel include -name '*.[ch]')

.PHONY: all setup module provider rdma-core vm-progs install uninstall unit \
	check-ulp check-ulp-debug check-kernels deb \
	kunit vm-test lint check check-debug bench demo clean \
	soak soak-debug fuzz fuzz-debug

all: module provider

setup:
	@scripts/setup

module: setup $(MODULE)

$(MODULE): $(MODULE_SOURCES)
	@test -d $(KDIR) || { echo "No kernel build tree at $(KDIR); run scripts/setup or set KDIR=" >&2; exit 1; }
	@mkdir -p $(MODULE_DIR)
	@rsync -a --delete --exclude='*.o' --exclude='.*.cmd' --exclude='*.ko' \
		--exclude='*.mod*' --exclude=modules.order --exclude=Module.symvers \
		Kbuild kernel include $(MODULE_DIR)/ 2>/dev/null || \
		rsync -a Kbuild kernel include $(MODULE_DIR)/
	$(MAKE) -C $(KDIR) M=$(MODULE_DIR) W=1 modules

provider: setup
	@scripts/rdma-core >/dev/null
	$(MAKE) -C userspace-provider BUILD=$(BUILD)

# rdma-core 56.1 built in place: pyverbs and its test suite, for the VM
# tests (a few minutes the first time, a second after that).
rdma-core: setup
	@scripts/rdma-core --full >/dev/null

# Programs the VM tests run in the guest.
VM_PROGS := $(patsubst tests/vm/progs/%.cc,$(BUILD)/vm-progs/%,$(wildcard tests/vm/progs/*.cc))

# The handler-teardown test's kernel module, for the kernel the module is
# built for (the guest would otherwise build it itself, slowly, under TCG).
HANDLER_DIR := $(BUILD)/handler-module/$(MODULE_KVER)
HANDLER_KO := $(HANDLER_DIR)/wookie_handler_test.ko

$(HANDLER_KO): tests/vm/handler-module/Kbuild tests/vm/handler-module/wookie_handler_test.c
	@test -d $(KDIR) || { echo "No kernel build tree at $(KDIR); run scripts/setup or set KDIR=" >&2; exit 1; }
	@mkdir -p $(HANDLER_DIR)
	cp $^ $(HANDLER_DIR)/
	$(MAKE) -C $(KDIR) M=$(HANDLER_DIR) W=1 modules

vm-progs: setup $(VM_PROGS) $(HANDLER_KO)

$(BUILD)/vm-progs/%: tests/vm/progs/%.cc include/uapi/rdma/wookie-abi.h
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -Wall -Wextra -Werror -O2 -g -I include/uapi -o $@ $< -libverbs

# roce_inject builds packets with the portable wire and ICRC code, compiled
# as C as the unit tests compile it.
INJECT_OBJS := $(patsubst %,$(BUILD)/vm-progs/portable/%.o,wookie_wire wookie_icrc wookie_link)

$(BUILD)/vm-progs/portable/%.o: kernel/portable/%.c $(wildcard kernel/portable/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -g -c -o $@ $<

$(BUILD)/vm-progs/roce_inject: tests/vm/progs/roce_inject.cc tests/vm/progs/roce_packet.h $(INJECT_OBJS)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -Wall -Wextra -Werror -O2 -g -I kernel/portable -o $@ $< $(INJECT_OBJS)

MAN7_DIR ?= /usr/share/man/man7

install: all
	install -D -m 0644 $(MODULE) $(DESTDIR)/lib/modules/$(MODULE_KVER)/updates/wookie.ko
	install -D -m 0644 $(PROVIDER) $(DESTDIR)$(IBVERBS_PROVIDER_DIR)/libwookie-rdmav34.so
	install -D -m 0644 $(PROVIDER_DIR)/wookie.driver $(DESTDIR)$(IBVERBS_CONFIG_DIR)/wookie.driver
	install -D -m 0644 Documentation/man/wookie.7 $(DESTDIR)$(MAN7_DIR)/wookie.7
	install -D -m 0644 Documentation/man/libwookie.7 $(DESTDIR)$(MAN7_DIR)/libwookie.7
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(MODULE_KVER); fi

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(MODULE_KVER)/updates/wookie.ko
	rm -f $(DESTDIR)$(IBVERBS_PROVIDER_DIR)/libwookie-rdmav34.so
	rm -f $(DESTDIR)$(IBVERBS_CONFIG_DIR)/wookie.driver
	rm -f $(DESTDIR)$(MAN7_DIR)/wookie.7 $(DESTDIR)$(MAN7_DIR)/libwookie.7
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(MODULE_KVER); fi

# wookie-dkms and wookie-provider .debs in build/deb/, lintian-checked.
deb: provider
	scripts/deb

unit: setup
	scripts/unit

kunit: setup
	scripts/kunit

lint: setup
	scripts/lint

vm-test: all vm-progs deb rdma-core
	scripts/vm-test

check: setup
	scripts/check

check-debug: setup
	scripts/check --debug-kernel

# The VM tests on both kernel lines, each with its own build of the module.
check-kernels: setup
	scripts/check --kernels

# The kernel consumers between two guests (NVMe-oF, iSER, NFS over RDMA,
# SRP), each beside rdma_rxe in the same boot, and perftest between wookie
# and rxe on two guests; make check runs them too, without rxe's runs.
ULP_TESTS := nvmeof iser nfsrdma srp pair-perftest

check-ulp: all vm-progs rdma-core
	WOOKIE_TEST_ULP_RXE=1 scripts/vm-test $(ULP_TESTS)

check-ulp-debug: setup rdma-core
	$(MAKE) --no-print-directory KDIR="$$(scripts/build-debug-kernel | tail -1)" all vm-progs
	WOOKIE_TEST_ULP_RXE=1 scripts/vm-test --debug-kernel $(ULP_TESTS)

# The long runs of issue 11's lanes, which make check runs briefly: the
# soak (tests/vm/soak.sh) for SOAK_MINUTES, the verbs and ring fuzzer
# (tests/vm/fuzz.sh) for FUZZ_MINUTES with FUZZ_SEED if set; the -debug
# targets on the sanitizer kernel.
SOAK_MINUTES ?= 30
FUZZ_MINUTES ?= 20
FUZZ_SEED ?=
SOAK_ENV = WOOKIE_TEST_SOAK_SECONDS=$$(( $(SOAK_MINUTES) * 60 ))
FUZZ_ENV = WOOKIE_TEST_FUZZ_SECONDS=$$(( $(FUZZ_MINUTES) * 60 )) \
	$(if $(FUZZ_SEED),WOOKIE_TEST_FUZZ_SEED=$(FUZZ_SEED))
DEBUG_KDIR = $$(scripts/build-debug-kernel | tail -1)

soak: all vm-progs
	$(SOAK_ENV) scripts/vm-test soak

soak-debug: setup
	$(MAKE) --no-print-directory KDIR="$(DEBUG_KDIR)" all vm-progs
	$(SOAK_ENV) scripts/vm-test --debug-kernel soak

fuzz: all vm-progs
	$(FUZZ_ENV) scripts/vm-test fuzz

fuzz-debug: setup
	$(MAKE) --no-print-directory KDIR="$(DEBUG_KDIR)" all vm-progs
	$(FUZZ_ENV) scripts/vm-test --debug-kernel fuzz

# perftest on rdma_rxe, siw (if the kernel has it) and wookie in one VM
# boot; BENCH_ARGS=--profile adds perf profiles (scripts/bench).
bench: all vm-progs
	scripts/bench $(BENCH_ARGS)

demo: all
	scripts/demo

clean:
	rm -rf $(BUILD)/module $(BUILD)/provider $(BUILD)/unit $(BUILD)/vm $(BUILD)/vm-progs \
		$(BUILD)/handler-module

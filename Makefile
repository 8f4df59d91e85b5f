# SPDX-License-Identifier: GPL-2.0
#
# mmlock: one binary, kernel-style build.
#   make            build $(O)/mmlock (installs missing Debian packages first)
#   make test       build and run every test suite (tests/run)
#   make run        the main job: patched kernel in QEMU, workloads, summaries
#   make demo       a shipped capture (demo/) analysed: verdicts, comparison, report.html
#                   in a minute, no root, no kernel
#   make kernel-test     the patched kernel's event tests in QEMU (kernel-test-debug:
#                        the PROVE_LOCKING build)
#   make V=1        show the commands;  make O=DIR  build out of tree
#   make SAN=1      build with AddressSanitizer and UndefinedBehaviorSanitizer
#   make check      cppcheck over the sources
#   make fuzz       libFuzzer over analyze and compare for FUZZ_SECONDS (600)
#   make mutate     the mutation gate: every bug of tests/mutate/mutants must
#                   make a fast suite fail (tests/mutate/README.md)
#   make mutate-kernel   the same for bugs planted in a kernel series: each is a
#                   kernel build plus the e2e suite on it (not in make test)
#   make ARCH=arm64 static aarch64 mmlock, unit tests and tools in build-arm64/
#                   (Debian's cross gcc + arm64 -dev packages: install-deps.sh arm64);
#                   make ARCH=arm64 test runs the unit and CLI suites under
#                   qemu-aarch64-static

MAKEFLAGS += --no-builtin-rules
.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDARY:

V	?= 0
SAN	?= 0
# Only `make ARCH=...` on the command line cross-builds: kernel developers
# often have ARCH exported for their kernel trees.
ifneq ($(origin ARCH),command line)
  ARCH :=
endif

# A cross build (make ARCH=arm64) gets its own folder and static binaries
# (a phone has no libtracefs); the native build stays as it was.
ifeq ($(ARCH),arm64)
  O		?= build-arm64
  CROSS_COMPILE	?= aarch64-linux-gnu-
  ifeq ($(origin CC),default)
    CC		= $(CROSS_COMPILE)gcc
  endif
  AR		= $(CROSS_COMPILE)ar
  PKG_CONFIG	= PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig pkg-config
  PKG_STATIC	= --static
  LDFLAGS	+= -static
  DEPS_GROUP	= arm64
else ifneq ($(filter-out x86_64 x86 $(shell uname -m),$(ARCH)),)
  $(error ARCH=$(ARCH): only arm64 is cross-built (leave ARCH unset for this machine))
endif
O		?= build
# One spelling of every target: -MMD names the object as the command line
# spelled $(O), so a relative and an absolute O of the same folder would
# each miss the other's header dependencies (a stale object, a broken binary).
override O	:= $(abspath $(O))
PKG_CONFIG	?= pkg-config
AR		?= ar

ifeq ($(V),1)
  Q =
  quiet = @true
else
  Q = @
  quiet = @printf '  %-8s %s\n'
endif

CC	?= cc
PKGS	:= libtracefs libtraceevent json-c libzstd zlib

CFLAGS	?= -O2 -g
CFLAGS	+= -DMMLOCK_VERSION=\"0.1\" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread \
	   -I. -Itracepoints -Icommon -Icapture
LDLIBS	+= -pthread -lm

# The native build also resolves user addresses to source lines (elfutils'
# libdw) and reads trace-cmd's trace.dat (libtracecmd).  Static binaries (the
# arm64 one for a phone, LDFLAGS=-static for the QEMU guests) do without both:
# Debian ships neither as a static archive with its private dependencies, and
# their symbols are resolved on the host (--symfs).
ifeq ($(ARCH)$(filter -static,$(LDFLAGS)),)
  PKGS	+= libdw libtracecmd
  CFLAGS += -DMMLOCK_HAVE_LIBDW -DMMLOCK_HAVE_TRACECMD
endif

ifeq ($(SAN),1)
  CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer \
	     -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
endif

# Sources are found by folder, so a new subcommand or module is one new file.
LIB_SRCS := $(sort $(wildcard tracepoints/*.c common/*.c capture/*.c analyzer/*.c \
			      collector/*.c workloads/*.c runner/*.c device/*.c report/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
UNIT_BINS := $(UNIT_SRCS:%.c=$(O)/%)
# Helper programs the test suites call (comparators, generators).
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOL_BINS := $(TOOL_SRCS:%.c=$(O)/%)

DEPS_STAMP := $(O)/.deps-ok

all: $(O)/mmlock $(UNIT_BINS) $(TOOL_BINS)

# On a fresh Debian 12 machine the libraries are missing: install them once.
$(DEPS_STAMP): scripts/install-deps.sh
	$(Q)mkdir -p $(@D)
	$(Q)$(PKG_CONFIG) --exists $(PKGS) 2>/dev/null || scripts/install-deps.sh $(DEPS_GROUP)
	$(Q)touch $@

PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   = $(shell $(PKG_CONFIG) $(PKG_STATIC) --libs $(PKGS))

$(O)/%.o: %.c $(DEPS_STAMP)
	$(quiet) CC $(@:$(CURDIR)/%=%)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

$(O)/libmmlock.a: $(LIB_OBJS)
	$(quiet) AR $(@:$(CURDIR)/%=%)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(O)/mmlock: $(O)/mmlock.o $(O)/libmmlock.a
	$(quiet) LD $(@:$(CURDIR)/%=%)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(O)/tests/unit/%: $(O)/tests/unit/%.o $(O)/libmmlock.a
	$(quiet) LD $(@:$(CURDIR)/%=%)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(O)/tests/tools/%: $(O)/tests/tools/%.o $(O)/libmmlock.a
	$(quiet) LD $(@:$(CURDIR)/%=%)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

# The extmem probe (Vulkan, EGL, GLES) is a binary of its own beside mmlock,
# built where those libraries are installed (scripts/install-deps.sh gpu).
ifeq ($(shell $(PKG_CONFIG) --exists vulkan egl glesv2 2>/dev/null && echo yes),yes)
all: $(O)/extmem-probe
endif
$(O)/extmem-probe: $(wildcard workloads/extmem/*.c workloads/extmem/*.h workloads/extmem/Makefile)
	$(Q)$(MAKE) -s -C workloads/extmem O=$(abspath $(O)) V=$(V) SAN=$(SAN)

# The device agent (a shell script run on the phone) is compiled in as a string.
$(O)/device/agent.inc: device/agent.sh
	$(quiet) GEN $(@:$(CURDIR)/%=%)
	$(Q)mkdir -p $(@D)
	$(Q)sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@.tmp && mv $@.tmp $@
$(O)/device/cmd-device.o: $(O)/device/agent.inc
$(O)/device/cmd-device.o: CFLAGS += -I$(O)/device

# The workloads report the flags they were built with (the seed's contract).
BUILD_FLAGS := $(CC) $(filter-out -D% -I%,$(CFLAGS))
$(O)/workloads/cmd-workload.o: CFLAGS += -DMMLOCK_BUILD_CFLAGS='"$(BUILD_FLAGS)"'

deps:
	scripts/install-deps.sh

ifeq ($(ARCH),arm64)
# The aarch64 binaries run here under qemu-user: $(O)/qemu-user mirrors them as
# wrapper scripts, so the suites exec them as they exec native ones (also from
# inside an emulated program, e.g. the property test's fork+exec of MMLOCK).
QEMU_USER ?= qemu-aarch64-static
EMU := $(O)/qemu-user
test: all
	$(quiet) WRAP $(EMU)
	$(Q)command -v $(QEMU_USER) >/dev/null || scripts/install-deps.sh arm64
	$(Q)rm -rf $(EMU) && mkdir -p $(EMU)/tests/unit $(EMU)/tests/tools
	$(Q)for b in mmlock $(UNIT_BINS:$(O)/%=%) $(TOOL_BINS:$(O)/%=%); do \
		printf '#!/bin/sh\nexec %s %s "$$@"\n' '$(QEMU_USER)' "$(abspath $(O))/$$b" \
			> $(EMU)/$$b && chmod 755 $(EMU)/$$b || exit 1; \
	done
	$(Q)PROPERTY_SEEDS=$${PROPERTY_SEEDS:-200} O=$(EMU) tests/run $(or $(SUITES),unit cli)
else
test: all
	$(Q)O=$(O) tests/run
endif

run: all
	$(Q)O=$(O) scripts/main-job

demo: all
	$(Q)O=$(O) scripts/demo

# The patched kernel in QEMU alone (issue 3's harness), and its debug variant.
kernel-test: all
	$(Q)O=$(O) tests/run qemu

kernel-test-debug: all
	$(Q)MMLOCK_QEMU_VARIANTS=debug O=$(O) tests/run qemu

# checkpatch, git am, every patch building on its own on x86_64 and arm64,
# for every series (Android: with MMLOCK_ANDROID_TREE=PATH, else a skip)
kernel-check:
	$(Q)kernel-patches/check-series kernel-patches/linux-6.12
	$(Q)kernel-patches/check-series kernel-patches/linux-7.2 "$$(scripts/fetch-kernel-source 7.2)"
	$(Q)if [ -n "$$MMLOCK_ANDROID_TREE" ]; then \
		kernel-patches/verify-android --bisect --no-boot "$$MMLOCK_ANDROID_TREE"; \
	else echo "skip - android14-6.1: per-patch builds need an Android tree (MMLOCK_ANDROID_TREE=PATH)"; fi

# libFuzzer (clang) over analyze and compare: tests/fuzz/README.md
FUZZ_SECONDS ?= 600
fuzz: all
	$(Q)O=$(O) tests/fuzz/fuzz $(FUZZ_SECONDS)

# Builds its own scratch copy: needs no $(O), only the tree.
mutate:
	$(Q)tests/mutate/run

# The kernel mutants: each one a kernel build, so never part of `make test`.
# They are 7.2 mutants: e2e runs on that series only.
mutate-kernel:
	$(Q)MUTATE_LIST=tests/mutate/kernel-mutants MUTATE_SLACK=$${MUTATE_SLACK:-3600} \
		MMLOCK_E2E_SERIES=$${MMLOCK_E2E_SERIES:-7.2} tests/mutate/run

bench-tracepoints: all
	$(Q)O=$(O) bench/tracepoint-cost/run

check: $(DEPS_STAMP) $(O)/device/agent.inc
	$(quiet) CPPCHECK .
	$(Q)cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability \
		--std=c11 --inline-suppr --suppress=missingIncludeSystem \
		-I tracepoints -I common -I capture -I . -I $(O)/device -D__GNUC__ -D_GNU_SOURCE \
		mmlock.c $(LIB_SRCS) $(UNIT_SRCS) $(TOOL_SRCS)

clean:
	$(quiet) CLEAN $(O)
	$(Q)rm -rf $(O)

.PHONY: all deps test run demo check clean kernel-test kernel-test-debug kernel-check bench-tracepoints \
	fuzz mutate mutate-kernel
-include $(LIB_OBJS:.o=.d) $(O)/mmlock.d $(UNIT_SRCS:%.c=$(O)/%.d) $(TOOL_SRCS:%.c=$(O)/%.d)

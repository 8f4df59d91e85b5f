# SPDX-License-Identifier: GPL-2.0
#
# mmlock: one binary, kernel-style build.
#   make            build $(O)/mmlock (installs missing Debian packages first)
#   make test       build and run every test suite (tests/run)
#   make run        the main job: patched kernel in QEMU, workloads, summaries
#   make kernel-test     the patched kernel's event tests in QEMU (kernel-test-debug:
#                        the PROVE_LOCKING build)
#   make V=1        show the commands;  make O=DIR  build out of tree
#   make SAN=1      build with AddressSanitizer and UndefinedBehaviorSanitizer
#   make check      cppcheck over the sources

MAKEFLAGS += --no-builtin-rules
.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDARY:

O	?= build
V	?= 0
SAN	?= 0

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
	   -I. -Itracepoints -Icommon
LDLIBS	+= -pthread -lm

ifeq ($(SAN),1)
  CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer \
	     -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
endif

# Sources are found by folder, so a new subcommand or module is one new file.
LIB_SRCS := $(sort $(wildcard tracepoints/*.c common/*.c analyzer/*.c \
			      collector/*.c workloads/*.c))
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
	$(Q)pkg-config --exists $(PKGS) 2>/dev/null || scripts/install-deps.sh
	$(Q)touch $@

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS))

$(O)/%.o: %.c $(DEPS_STAMP)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

$(O)/libmmlock.a: $(LIB_OBJS)
	$(quiet) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/mmlock: $(O)/mmlock.o $(O)/libmmlock.a
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(O)/tests/unit/%: $(O)/tests/unit/%.o $(O)/libmmlock.a
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(O)/tests/tools/%: $(O)/tests/tools/%.o $(O)/libmmlock.a
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

# The extmem probe (Vulkan, EGL, GLES) is a binary of its own beside mmlock,
# built where those libraries are installed (scripts/install-deps.sh gpu).
ifeq ($(shell pkg-config --exists vulkan egl glesv2 2>/dev/null && echo yes),yes)
all: $(O)/extmem-probe
endif
$(O)/extmem-probe: $(wildcard workloads/extmem/*.c workloads/extmem/*.h workloads/extmem/Makefile)
	$(Q)$(MAKE) -s -C workloads/extmem O=$(abspath $(O)) V=$(V) SAN=$(SAN)

# The workloads report the flags they were built with (the seed's contract).
BUILD_FLAGS := $(CC) $(filter-out -D% -I%,$(CFLAGS))
$(O)/workloads/cmd-workload.o: CFLAGS += -DMMLOCK_BUILD_CFLAGS='"$(BUILD_FLAGS)"'

deps:
	scripts/install-deps.sh

test: all
	$(Q)O=$(O) tests/run

run: all
	$(Q)O=$(O) scripts/main-job

# The patched kernel in QEMU alone (issue 3's harness), and its debug variant.
kernel-test: all
	$(Q)O=$(O) tests/run qemu

kernel-test-debug: all
	$(Q)MMLOCK_QEMU_VARIANTS=debug O=$(O) tests/run qemu

# checkpatch, git am, every patch building on its own, the arm64 build
kernel-check:
	$(Q)kernel-patches/check-series

bench-tracepoints: all
	$(Q)O=$(O) bench/tracepoint-cost/run

check: $(DEPS_STAMP)
	$(quiet) CPPCHECK .
	$(Q)cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability \
		--std=c11 --inline-suppr --suppress=missingIncludeSystem \
		-I tracepoints -I common -I . -D__GNUC__ -D_GNU_SOURCE \
		mmlock.c $(LIB_SRCS) $(UNIT_SRCS) $(TOOL_SRCS)

clean:
	$(quiet) CLEAN $(O)
	$(Q)rm -rf $(O)

.PHONY: all deps test run check clean kernel-test kernel-test-debug kernel-check bench-tracepoints
-include $(LIB_OBJS:.o=.d) $(O)/mmlock.d

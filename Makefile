# poolbench — the only build.
#
#   make            build every harness into build/bin/
#   make test       build and run every Criterion test
#   make check      make test + the tests under AddressSanitizer/UBSan + the ThreadSanitizer pool harness
#   make report     the default suite into results/<host>/<stamp>/ (QUICK=1 for a short one)
#   make deps       install missing Debian packages (apt-get update first)
#   make likwid-compare  bench_memory_floor against likwid-bench, back to back (installs likwid; ARGS=...)
#   make fuzz       fuzz the CSV, GGUF, llama-bench and wisdom readers and the expect grammar (libFuzzer), 60 s each
#   make test-arm64 cross-build into build-arm64/, run every test under qemu-user (two CPU models; installs them)
#   make predict    llvm-mca's cycles for every kernel's hot loop, 9 cores: build/predict/predict.csv (installs llvm)
#   make isa-probe  TSC ticks per instruction of the AVX-512 and AVX2 kernels' building blocks (x86-64)
#   make manycore   dispatch and decode at 2-16 threads on 16+ cpus, kept under tests/data/manycore/<host>/
#   make fresh-root make test, make report QUICK=1 and make test-arm64 in a fresh Debian 12 root (as root; CI's)
#
# Files are picked up by name, so adding a module needs no edit here:
#   pool/*.c -> libpool.a, kernels/*.c -> libkernels.a, bench/<layer>/*.c -> libpb.a, bench/bench_*.c ->
#   programs, tests/*/test_*.c -> one Criterion binary, tests/tsan/*.c -> plain mains built with ThreadSanitizer.
#   Files under an x86/ folder are built on x86-64 only, under an arm/ folder on arm64 (aarch64) only; *_avx2.c,
#   *_avxvnni.c, *_avx512.c, *_avx512gfni.c, *_neon.c, *_dotprod.c and *_i8mm.c get their ISA flags; everything else is built for the
#   baseline ISA, and the ISA variants are chosen at run time. ARCH (default: the target of CC, as uname -m
#   names it) names the target.
#
# Layers: bench/base < io < platform < machine < measure < harness < report < the mains (bench/bench_*.c).
# A file is compiled with the include paths of its own layer and the layers below only (LAYER_INC), so a
# lower layer that includes a higher one's header does not compile: the build enforces the direction. pool/
# sees only itself, kernels/ itself and pool/ (the matvec splits rows over a pool); bench/machine and above
# see pool/, bench/measure and above kernels/. A layer's sub-folder (bench/measure/loops: each harness's measuring
# loop) is part of the layer: its .c files are built with the layer's paths, and a sub-folder whose headers
# others include is named in its layer's INC_ line.

CC       ?= cc
BUILD    ?= build
SAN      ?=
OPT      ?= -O2
WARN      = -Wall -Wextra -Wpedantic -Werror
CPPFLAGS += -D_GNU_SOURCE
INC_base     = -Ibench/base
INC_io       = $(INC_base) -Ibench/io -Ibench/io/gguf -Ibench/io/llamabench -Ibench/io/db
INC_platform = $(INC_io) -Ibench/platform
INC_machine  = $(INC_platform) -Ibench/machine -Ipool
INC_measure  = $(INC_machine) -Ibench/measure -Ibench/measure/exec -Ibench/measure/floor -Ibench/measure/loops \
               -Ibench/measure/model -Ibench/measure/attn -Ikernels
INC_harness  = $(INC_measure) -Ibench/harness
INC_report   = $(INC_harness) -Ibench/report -Ibench/report/check -Ibench/report/compare -Ibench/report/results \
               -Ibench/report/engine
INC_ALL      = $(INC_report)
CFLAGS   += -std=c11 $(OPT) -g $(WARN) -pthread -fopenmp $(SAN)
# libcpuid identifies x86 CPUs only (bench/machine/x86/); arm64 reads /proc/cpuinfo and the auxiliary vector.
# SQLite keeps the results database and reads llama-bench's SQL; jansson reads its JSON.
PKGS      = hwloc sqlite3 jansson $(if $(filter x86_64,$(ARCH)),libcpuid)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libpfm4 names hardware events on x86-64 (bench/platform/x86/); it ships no pkg-config file.
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) $(if $(filter x86_64,$(ARCH)),-lpfm)
CRIT_LIBS  = $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)
LDLIBS    = $(PKG_LIBS) -fopenmp -lm -pthread $(SAN)

# The compiler's target, not the host's: CC=aarch64-linux-gnu-gcc on x86-64 builds arm64 (make test-arm64).
ARCH := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine)))
ifeq ($(ARCH),x86_64)
AVX2_FLAGS   = -mavx2 -mfma -mf16c
# No -mavxvnni: the files use the EVEX (zmm) VNNI form, checked at run time as avx512vnni; with -mavxvnni the
# compiler may emit VEX AVX-VNNI, which Zen 4, Ice Lake and Cascade Lake lack (nothing checks for it).
AVX512_FLAGS = -mavx2 -mfma -mf16c -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni
AVX512GFNI_FLAGS = $(AVX512_FLAGS) -mgfni
# The VEX vpdpbusd and vgf2p8affineqb on 256 bits, and no AVX-512: the file runs on cores that have AVX-VNNI and GFNI
# without AVX-512 (Alder Lake).
AVXVNNI_FLAGS = $(AVX2_FLAGS) -mavxvnni -mgfni
else
AVX2_FLAGS   =
AVX512_FLAGS =
endif
# arm64: pattern-specific ISA_FLAGS, which the generic object rule passes. dotprod (optional from ARMv8.2) and
# i8mm (optional from ARMv8.2, mandatory at 8.6) are built for ARMv8.2 plus the feature, not for 8.6: a CPU that
# reports them (kern_isa.c's HWCAP checks) then runs everything the compiler may emit; Neoverse V1 (Graviton 3)
# has i8mm but is ARMv8.4.
ifeq ($(ARCH),aarch64)
$(BUILD)/obj/%_neon.o:    ISA_FLAGS = -march=armv8-a
$(BUILD)/obj/%_dotprod.o: ISA_FLAGS = -march=armv8.2-a+dotprod
$(BUILD)/obj/%_i8mm.o:    ISA_FLAGS = -march=armv8.2-a+dotprod+i8mm
endif

POOL_SRC   = $(wildcard pool/*.c)
KERN_SRC   = $(wildcard kernels/*.c kernels/*/*.c)
PB_LAYERS  = base io platform machine measure harness report
PB_SRC     = $(foreach l,$(PB_LAYERS),$(wildcard bench/$(l)/*.c bench/$(l)/*/*.c))
# $(call drop_dir,DIR,FILES): FILES less those under a DIR/ folder (filter-out's pattern takes only one %, so
# %/x86/% never matched: a build elsewhere than x86-64 compiled the x86 files).
drop_dir = $(foreach f,$(2),$(if $(findstring /$(1)/,$(f)),,$(f)))
ifneq ($(ARCH),x86_64)
KERN_SRC  := $(call drop_dir,x86,$(KERN_SRC))
PB_SRC    := $(call drop_dir,x86,$(PB_SRC))
endif
ifneq ($(ARCH),aarch64)
KERN_SRC  := $(call drop_dir,arm,$(KERN_SRC))
PB_SRC    := $(call drop_dir,arm,$(PB_SRC))
endif
BENCH_SRC  = $(wildcard bench/bench_*.c)
# Tests sit in a folder per layer they test (tests/pool, tests/kernels, ... tests/report); tests/lib holds the
# helpers shared across folders. tests/arm/: arm64 test builds only (qemu_exec.c: Criterion re-executing itself
# under qemu-user).
TEST_SRC   = $(wildcard tests/*/test_*.c) $(if $(filter aarch64,$(ARCH)),$(wildcard tests/arm/*.c))
TSAN_SRC   = $(wildcard tests/tsan/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
LIBPOOL = $(BUILD)/libpool.a
LIBKERN = $(BUILD)/libkernels.a
LIBPB   = $(BUILD)/libpb.a
LIBS_A  = $(LIBPB) $(LIBKERN) $(LIBPOOL)
BINS    = $(patsubst bench/%.c,$(BUILD)/bin/%,$(BENCH_SRC))
TESTBIN = $(BUILD)/bin/poolbench_tests
# The programs the CLI tests run: the harnesses, and on x86-64 make isa-probe's (scripts/isa_probe.c).
TESTED_BINS = $(BINS) $(if $(filter x86_64,$(ARCH)),$(BUILD)/bin/isa_probe)
TSANBINS = $(patsubst tests/tsan/%.c,build-tsan/bin/%,$(TSAN_SRC))

# Objects are intermediates of pattern-rule chains: keep them, or every make rebuilds the harnesses.
.SECONDARY:
.PHONY: all deps deps-likwid likwid-compare test check asan-test tsan-test test-arm64 report clean fuzz help manycore \
        predict deps-predict isa-probe fresh-root
all: $(BINS)

help:
	@sed -n '2,20p' Makefile

deps:
	@sh scripts/deps.sh

# Each object's include paths: its layer's (see the top).
$(BUILD)/obj/pool/%.o: LAYER_INC = -Ipool
$(BUILD)/obj/kernels/%.o: LAYER_INC = -Ipool -Ikernels
$(foreach l,$(PB_LAYERS),$(eval $(BUILD)/obj/bench/$(l)/%.o: LAYER_INC = $(INC_$(l))))
$(BUILD)/obj/bench/bench_%.o: LAYER_INC = $(INC_ALL)
# A test sees every layer, and tests/lib's helpers (a folder's own helpers are found beside its tests).
$(BUILD)/obj/tests/%.o: LAYER_INC = $(INC_ALL) -Itests/lib

# x86-64's ISA files: their flags through the generic rule's ISA_FLAGS, as arm64's.
$(BUILD)/obj/%_avx2.o: ISA_FLAGS = $(AVX2_FLAGS)
$(BUILD)/obj/%_avxvnni.o: ISA_FLAGS = $(AVXVNNI_FLAGS)
$(BUILD)/obj/%_avx512.o: ISA_FLAGS = $(AVX512_FLAGS)
$(BUILD)/obj/%_avx512gfni.o: ISA_FLAGS = $(AVX512GFNI_FLAGS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(LAYER_INC) $(PKG_CFLAGS) $(CFLAGS) $(ISA_FLAGS) -MMD -MP -c $< -o $@

# Machine identity records the flags this build used (machine.csv and the context header).
$(BUILD)/obj/bench/machine/pb_machine.o: CPPFLAGS += -DPB_CFLAGS='"$(strip $(CFLAGS))"'

# Wisdom (bench/measure/pb_wisdom.c) is keyed by the build: a checksum of the sources of what bench_tune times (the
# matvec kernels, the floor's read kernels), kept in $(BUILD)/build-id and rewritten only when it changes, so that
# one object is rebuilt exactly then.
WISDOM_SRC = $(sort $(wildcard kernels/*.[ch] kernels/*/*.[ch] bench/measure/floor/pb_memread*.[ch] \
                               bench/measure/*/pb_memread_*.c))
BUILD_ID  := $(shell cat $(WISDOM_SRC) | cksum | tr ' ' -)
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(BUILD)/build-id 2>/dev/null)" = "$(BUILD_ID)" ] || echo $(BUILD_ID) >$(BUILD)/build-id; })
$(BUILD)/obj/bench/measure/pb_wisdom.o: CPPFLAGS += -DPB_BUILD_ID='"$(BUILD_ID)"'
$(BUILD)/obj/bench/measure/pb_wisdom.o: $(BUILD)/build-id

# Each archive is made afresh: `ar rcs` only adds and replaces members, so a renamed or removed source's old
# object would stay in it and clash with (or stand in for) the new one at link time.
$(LIBPOOL): $(call obj,$(POOL_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(LIBKERN): $(call obj,$(KERN_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(LIBPB): $(call obj,$(PB_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/bin/%: $(BUILD)/obj/bench/%.o $(LIBS_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LIBS_A) $(LDLIBS) -o $@

$(TESTBIN): $(call obj,$(TEST_SRC)) $(LIBS_A) $(TESTED_BINS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(call obj,$(TEST_SRC)) $(LIBS_A) $(CRIT_LIBS) $(LDLIBS) -o $@

# Tests find the harnesses through POOLBENCH_BIN (the CLI tests run them as a user would). check_prefetch.sh: the
# streaming passes kept their prefetch instructions (a compiler may drop them; no timing can tell). The target is
# asked of the compiler here, not taken from ARCH: on a fresh machine the compiler is only there after make deps.
test: deps
	@$(MAKE) --no-print-directory $(TESTBIN)
	@sh scripts/check_prefetch.sh $(BUILD) "$$($(CC) -dumpmachine)"
	POOLBENCH_BIN=$(BUILD)/bin $(TESTBIN) -j2

asan-test: deps
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" build-asan/bin/poolbench_tests
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp POOLBENCH_BIN=build-asan/bin build-asan/bin/poolbench_tests -j2

# The harnesses use the pool and kernels, and tsan_decode bench/measure's decode (hence hwloc's and OpenMP's link
# flags; its executors are pools only, so no OpenMP team runs under TSan).
# The libraries come from one sub-make with the TSan flags, run when a source or header of theirs is newer
# than them: it rebuilds what that touches (its .d files know the headers), and the libraries are touched
# together after it, so a binary relinks when something it links changed, and only then. Not inside that
# sub-make (BUILD=build-tsan), where the libraries' own rules apply.
TSAN_LIBS = build-tsan/libpb.a build-tsan/libkernels.a build-tsan/libpool.a
TSAN_INPUTS = $(POOL_SRC) $(KERN_SRC) $(PB_SRC) $(wildcard pool/*.h kernels/*.h bench/*/*.h bench/*/*/*.h)
ifneq ($(BUILD),build-tsan)
$(TSAN_LIBS) &: $(TSAN_INPUTS)
	@$(MAKE) --no-print-directory BUILD=build-tsan OPT=-O1 SAN="-fsanitize=thread" $(TSAN_LIBS)
	@touch $(TSAN_LIBS)
endif

build-tsan/bin/%: tests/tsan/%.c $(wildcard tests/tsan/*.h) $(TSAN_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(INC_ALL) $(PKG_CFLAGS) -std=c11 -O1 -g $(WARN) -pthread -fopenmp -fsanitize=thread $< $(TSAN_LIBS) $(PKG_LIBS) -fopenmp -lm -pthread -fsanitize=thread -o $@

tsan-test: deps $(TSANBINS)
	@for t in $(TSANBINS); do echo "== $$t"; TSAN_OPTIONS=halt_on_error=1 $$t || exit 1; done

check: test asan-test tsan-test
	@echo "check: all passed (Criterion, ASan+UBSan, TSan)"

report: deps all
	@sh scripts/report.sh $(if $(QUICK),--quick,)

# scripts/manycore.sh: on fewer than 16 cpus one line and nothing run.
manycore: deps all
	@sh scripts/manycore.sh $(ARGS)

deps-likwid:
	@sh scripts/deps.sh likwid

# ARGS: the script's options, e.g. make likwid-compare ARGS="--threads 1,2 --rounds 3".
likwid-compare: deps deps-likwid all
	@sh scripts/likwid_compare.sh $(ARGS)

# arm64 under qemu-user: the cross build into build-arm64/ and every test on two CPU models (scripts/test_arm64.sh).
test-arm64:
	@sh scripts/test_arm64.sh

# The README's commands on a fresh Debian 12 root (scripts/fresh_root.sh: debootstrap, chroot; its root cached as
# build-fresh/debian12-minbase.tar). ARGS: other commands to run there instead.
fresh-root:
	@bash scripts/fresh_root.sh $(ARGS)

# Cycles on paper (scripts/predict.sh): the kernels compiled with -S with this build's flags, each hot loop through
# llvm-mca; ARGS="--run-dir results/<host>/latest" also puts predict.csv where bench_report finds it. Not part of
# make test: 40 to 90 s on this 2-vCPU VM.
deps-predict:
	@sh scripts/deps.sh predict

predict: deps deps-predict
	@PREDICT_CFLAGS="$(CPPFLAGS) $(CFLAGS)" PREDICT_AVX2_FLAGS="$(AVX2_FLAGS)" PREDICT_AVX512_FLAGS="$(AVX512_FLAGS)" \
	    PREDICT_AVX512GFNI_FLAGS="$(AVX512GFNI_FLAGS)" PREDICT_AVXVNNI_FLAGS="$(AVXVNNI_FLAGS)" sh scripts/predict.sh --out $(BUILD)/predict $(ARGS)

# TSC ticks per instruction of the AVX-512 and AVX2 kernels' building blocks (scripts/isa_probe.c: what sets a
# kernel's pace where a VM has no perf counters for llvm-exegesis); ARGS="--iterations N". x86-64 only. make test runs
# it only for its CLI contract (tests/harness/test_isa_probe_cli.c), never as a timing.
ifeq ($(ARCH),x86_64)
isa-probe: $(BUILD)/bin/isa_probe
	$(BUILD)/bin/isa_probe $(ARGS)
else
isa-probe:
	@echo "isa-probe: skipped: its probes are x86-64 AVX-512 and AVX2 instructions (ARCH is $(ARCH))"
endif

$(BUILD)/bin/isa_probe: scripts/isa_probe.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=c11 -O2 -g $(WARN) $< -o $@

# libFuzzer on the CSV, GGUF, llama-bench and wisdom readers and bench_check's expect grammar for 60 s each
# (FUZZ_SECONDS=N to change), with clang's ASan+UBSan.
fuzz:
	@sh scripts/fuzz.sh

clean:
	rm -rf build build-asan build-tsan build-fuzz build-arm64

-include $(shell find $(BUILD) build-asan build-tsan -name '*.d' 2>/dev/null)

# Makefile for prof. Targets:
#   make deps     install the Debian packages the build and tests need
#   make          build build/prof and the example workloads
#   make demo     record an example workload and write its outputs to demo/
#   make test     unit + fuzz + end-to-end tests, then again under ASan+UBSan
#   make SANITIZE=address,undefined   sanitizer build into build-san/

CC ?= cc
SANITIZE ?=
ifeq ($(SANITIZE),)
BUILD ?= build
SANFLAGS :=
else
BUILD ?= build-san
SANFLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
endif

WARN := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wwrite-strings \
	-Wshadow -Werror
CFLAGS ?= -O2 -g
XML_CFLAGS := $(shell pkg-config --cflags libxml-2.0)
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -fno-omit-frame-pointer $(SANFLAGS) $(CFLAGS) -I. \
	$(XML_CFLAGS)
# capstone and libxml2 are not linked: prof loads them when a command needs
# them (lib/dynlib.h); their headers are still needed. The unit tests parse
# SVG with libxml2 themselves.
LDLIBS := -lelf -ldw -liberty -lz -ldeflate -llzma -lm -ltraceevent -lncursesw
ALL_LDFLAGS := $(SANFLAGS) $(LDFLAGS)

MODULES := lib record symbolize report svg jvm dump top
SRCS := prof.c $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
# svg/js/*.js go into the binary as one C string (see below).
GEN_OBJS := $(BUILD)/svg/flamegraph-js.o $(BUILD)/svg/timeline-js.o
OBJS := $(SRCS:%.c=$(BUILD)/%.o) $(GEN_OBJS)
LIB_OBJS := $(filter-out $(BUILD)/prof.o,$(OBJS))

EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c)) \
	$(patsubst examples/%.cpp,$(BUILD)/examples/%,$(wildcard examples/*.cpp))
JAVA_EXAMPLES := $(BUILD)/examples/java/Service.class
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))

.PHONY: all deps demo test unit cli fuzz clean check-includes bench

all: $(BUILD)/prof $(EXAMPLES) $(JAVA_EXAMPLES)

deps:
	@sh tools/install-deps.sh

$(BUILD)/prof: $(OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The flamegraph script, embedded as a C string (svg/embed-js.awk). It must
# not hold "]]>", which would end the CDATA section it is written into.
# The files of svg/js/ are one script, concatenated in the order of their
# names.
FLAMEGRAPH_JS := $(sort $(wildcard svg/js/*.js))
$(BUILD)/svg/flamegraph-js.c: $(FLAMEGRAPH_JS) svg/embed-js.awk
	@mkdir -p $(dir $@)
	@if grep -l ']]>' $(FLAMEGRAPH_JS); then echo "must not contain ]]>" >&2; exit 1; fi
	cat $(FLAMEGRAPH_JS) | awk -f svg/embed-js.awk > $@.tmp && mv $@.tmp $@

$(BUILD)/svg/flamegraph-js.o: $(BUILD)/svg/flamegraph-js.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The timeline page's script (prof svg --timeline), the same way.
TIMELINE_JS := $(sort $(wildcard svg/timeline-js/*.js))
$(BUILD)/svg/timeline-js.c: $(TIMELINE_JS) svg/embed-js.awk
	@mkdir -p $(dir $@)
	@if grep -l ']]>' $(TIMELINE_JS); then echo "must not contain ]]>" >&2; exit 1; fi
	cat $(TIMELINE_JS) | awk -v name=svg_timeline_js -f svg/embed-js.awk > $@.tmp && mv $@.tmp $@

$(BUILD)/svg/timeline-js.o: $(BUILD)/svg/timeline-js.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Example workloads: plain -O1 with frame pointers, never sanitized, so the
# stacks they show are the ones users see.
$(BUILD)/examples/%: examples/%.c examples/duty-cycle.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -fno-inline \
		-Wall -Wextra -Werror -pthread -o $@ $< -lm

# hotloop (prof annotate's example) is built as services are: -O2 with DWARF
# line info and frame pointers.
$(BUILD)/examples/hotloop: examples/hotloop.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
		-o $@ $<

# C++ examples: -O2 -g, so they have inlined code and the DWARF that
# describes it (examples/cxx-inline.cpp), with frame pointers.
CXX ?= g++
$(BUILD)/examples/%: examples/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -o $@ $<

# Stack-walking examples with their own flags: nofp-deep without frame
# pointers (for --call-graph dwarf), leaf-frameless with frame pointers but a
# frameless leaf (gcc's default -momit-leaf-frame-pointer, made explicit).
$(BUILD)/examples/nofp-deep: examples/nofp-deep.c examples/duty-cycle.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls \
		-Wall -Wextra -Werror -pthread -o $@ $<
$(BUILD)/examples/leaf-frameless: examples/leaf-frameless.c examples/duty-cycle.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -momit-leaf-frame-pointer \
		-fno-optimize-sibling-calls -Wall -Wextra -Werror -o $@ $<

# lockwait-fp: examples/lockwait.c with frame pointers in its own code (the
# C library still has none): --call-graph auto picks frame pointers for the
# CPU samples and DWARF for the switch-out stacks (t0415).
$(BUILD)/examples/lockwait-fp: examples/lockwait.c examples/duty-cycle.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -DLOCKWAIT_FP -O1 -g -fno-omit-frame-pointer -fno-inline \
		-Wall -Wextra -Werror -pthread -o $@ $< -lm
all: $(BUILD)/examples/lockwait-fp

# The hot code in a library of the program's own tree (examples/lib/): the
# same library with and without frame pointers, each linked into the same
# frame-pointer program, found through DT_RUNPATH $$ORIGIN
# (tests/cli/t0525-call-graph-auto.bats).
LIB_EXAMPLES := $(addprefix $(BUILD)/examples/,lib-fp-app lib-nofp-app)
all: $(LIB_EXAMPLES)
$(BUILD)/examples/libwork-fp.so: examples/lib/work.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -fPIC -shared \
		-Wall -Wextra -Werror -o $@ $<
$(BUILD)/examples/libwork-nofp.so: examples/lib/work.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls \
		-fPIC -shared -Wall -Wextra -Werror -o $@ $<
$(BUILD)/examples/lib-%-app: examples/lib/app.c $(BUILD)/examples/libwork-%.so
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -fno-inline \
		-Wall -Wextra -Werror -o $@ $< -L$(BUILD)/examples -lwork-$* \
		-Wl,--enable-new-dtags,-rpath,'$$ORIGIN'

# Split DWARF (tests/cli/t0550-split-rust.bats): the C++ example built as
# above with -gsplit-dwarf, DWARF 5 and GNU DWARF 4 (its DIEs in a .dwo file
# beside it), and a DWARF 4 twin without split DWARF (the same code, the
# reference addr2line reads).
SPLIT_EXAMPLES := $(addprefix $(BUILD)/examples/split-dwarf/cxx-inline-,dwarf5 dwarf4 dwarf4-plain)
all: $(SPLIT_EXAMPLES)
$(BUILD)/examples/split-dwarf/cxx-inline-dwarf5: examples/cxx-inline.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -gdwarf-5 -gsplit-dwarf -fno-omit-frame-pointer -Wall -Wextra \
		-Werror -o $@ $<
$(BUILD)/examples/split-dwarf/cxx-inline-dwarf4: examples/cxx-inline.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -gdwarf-4 -gsplit-dwarf -fno-omit-frame-pointer -Wall -Wextra \
		-Werror -o $@ $<
$(BUILD)/examples/split-dwarf/cxx-inline-dwarf4-plain: examples/cxx-inline.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -gdwarf-4 -fno-omit-frame-pointer -Wall -Wextra -Werror -o $@ $<

# Rust examples (examples/rust/), when /usr/bin/rustc exists (make deps
# installs Debian's): -g, frame pointers, opt-level 2, with legacy symbol
# mangling (rustc's default) and v0. Without rustc they are not built (the
# tests that need them fail, saying so).
RUSTC ?= /usr/bin/rustc
RUST_FLAGS := -g -C force-frame-pointers=yes -C opt-level=2
ifneq ($(wildcard $(RUSTC)),)
all: $(BUILD)/examples/rust/rust-example $(BUILD)/examples/rust/rust-example-v0
endif
$(BUILD)/examples/rust/rust-example: examples/rust/rust-example.rs
	@mkdir -p $(dir $@)
	$(RUSTC) $(RUST_FLAGS) -o $@ $<
$(BUILD)/examples/rust/rust-example-v0: examples/rust/rust-example.rs
	@mkdir -p $(dir $@)
	$(RUSTC) $(RUST_FLAGS) -C symbol-mangling-version=v0 -o $@ $<

# Java examples (examples/java/, for the JVM support): compiled with JDK 17's
# javac into build/examples/java/ (run with java -cp build/examples/java).
JAVA_HOME ?= /usr/lib/jvm/java-17-openjdk-amd64
JAVAC ?= $(JAVA_HOME)/bin/javac
$(BUILD)/examples/java/Service.class: $(wildcard examples/java/*.java)
	@mkdir -p $(dir $@)
	$(JAVAC) -nowarn -d $(dir $@) $^

$(BUILD)/tests/unit/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJS) $(ALL_LDFLAGS) $(LDLIBS) -lxml2 -lcmocka

demo: all
	@sh tools/demo.sh $(BUILD)

unit: $(UNIT_TESTS)

# libFuzzer needs clang; the fuzz targets are built with ASan+UBSan.
# svg/: only its readers of untrusted bytes (no libxml2, no embedded script).
# The library is compiled once into $(BUILD)/fuzz/obj/ (instrumented for the
# fuzzer, without its main) and linked into every target: compiling it again
# for each of the twelve targets took 5 of CI's 30 minutes.
FUZZ_SRCS := $(filter-out prof.c svg/%,$(SRCS)) svg/palette.c
FUZZ_OBJS := $(FUZZ_SRCS:%.c=$(BUILD)/fuzz/obj/%.o)
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -I. -fno-sanitize-recover=all
$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)
-include $(FUZZ_OBJS:.o=.d)

FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/*.c))
fuzz: $(FUZZ_TARGETS)

test: deps
	@sh tools/run-tests.sh

check-includes:
	@sh tools/check-includes.sh

# Benchmarks against perf (minutes; wants a quiet machine). See bench/README.md.
bench: all
	@PROF=$(BUILD)/prof bash bench/overhead.sh
	@PROF=$(BUILD)/prof bash bench/report-speed.sh
	@PROF=$(BUILD)/prof bash bench/recorder-cpu.sh
	@PROF=$(BUILD)/prof bash bench/lost.sh
	@PROF=$(BUILD)/prof bash bench/svg-speed.sh
	@PROF=$(BUILD)/prof bash bench/svg-browser.sh
	@PROF=$(BUILD)/prof bash bench/timeline.sh
	@PROF=$(BUILD)/prof bash bench/unwind-speed.sh
	@PROF=$(BUILD)/prof bash bench/sched-overhead.sh
	@PROF=$(BUILD)/prof bash bench/symbolize-speed.sh
	@PROF=$(BUILD)/prof bash bench/debuginfo.sh
	@PROF=$(BUILD)/prof bash bench/annotate-speed.sh
	@PROF=$(BUILD)/prof bash bench/check-speed.sh
	@PROF=$(BUILD)/prof bash bench/jvm-overhead.sh
	@PROF=$(BUILD)/prof bash bench/probe-cost.sh
	@PROF=$(BUILD)/prof bash bench/alloc-overhead.sh

clean:
	rm -rf build build-san demo

-include $(OBJS:.o=.d)

# Java examples (tests/cli/t0610-alloc.bats, bench/alloc-overhead.sh):
# class files next to the C examples, when a JDK is installed.
ifneq ($(shell command -v javac 2>/dev/null),)
all: $(BUILD)/examples/JavaAlloc.class
endif
$(BUILD)/examples/%.class: examples/%.java
	@mkdir -p $(dir $@)
	javac -d $(BUILD)/examples $<

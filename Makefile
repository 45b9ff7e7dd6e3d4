# sinew: `make demo` runs the main example, `make test` runs the tests. Both install missing
# Debian packages first (tools/deps.sh). See README.md, "Development".

LUA     ?= lua5.4
LUAS    := lua5.4 lua5.3 lua5.1 luajit
BUILD   ?= build/$(LUA)
CC      ?= cc
OPT     ?= -O3 -fno-math-errno
WARN    := -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes
CFLAGS  ?=
LIBFLAG ?= -shared
# float-cast-overflow: an out-of-range float-to-integer conversion is undefined, and gcc's
# -fsanitize=undefined does not include its check
SANFLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1

# Lua headers: pkg-config, else Debian's include folders.
LUA_PC_luajit := luajit
LUA_PC_lua5.4 := lua5.4
LUA_PC_lua5.3 := lua5.3
LUA_PC_lua5.1 := lua5.1
LUA_CFLAGS ?= $(shell pkg-config --cflags $(LUA_PC_$(LUA)) 2>/dev/null || \
                echo -I/usr/include/$(if $(filter luajit,$(LUA)),luajit-2.1,$(LUA)))

CORE_SRC    := $(wildcard src/core/*.c)
BINDING_SRC := $(wildcard src/binding/*.c)
CORE_OBJ    := $(CORE_SRC:src/%.c=$(BUILD)/obj/%.o)
BINDING_OBJ := $(BINDING_SRC:src/%.c=$(BUILD)/obj/%.o)
HEADERS     := $(wildcard src/core/*.h src/binding/*.h)
CTESTS      := $(patsubst spec/c/%.c,$(BUILD)/c/%,$(wildcard spec/c/test_*.c))
CBENCHES    := $(patsubst bench/c/%.c,$(BUILD)/bench/%,$(wildcard bench/c/bench_*.c))

PKGS_BUILD := gcc make pkg-config
PKGS_lua5.4 := lua5.4 liblua5.4-dev
PKGS_lua5.3 := lua5.3 liblua5.3-dev
PKGS_lua5.1 := lua5.1 liblua5.1-0-dev
PKGS_luajit := luajit libluajit-5.1-dev
# the JSON decoders of sinew.gltf: dkjson (what it needs), lua-cjson (what it prefers; the specs
# check that both give the same assets)
PKGS_JSON  := lua-dkjson lua-cjson
PKGS_DATA  := assimp-testmodels
PKGS_TEST  := $(PKGS_BUILD) $(PKGS_$(LUA)) lua-busted $(PKGS_JSON)
PKGS_ALL   := $(PKGS_BUILD) $(foreach l,$(LUAS),$(PKGS_$(l))) lua-busted $(PKGS_JSON) $(PKGS_DATA) love xvfb xauth

.PHONY: all build rock-core ctests test test-all test-love sanitize valgrind lint deps-ci bench bench-ozz demo demo-love demo-love2d docs rock fuzz \
	clean deps-test deps-build dragonbones-reference

all: build
# the compiler and the headers of $(LUA) first (installed when missing, or the line to run printed)
build: deps-build
	@$(MAKE) -s $(BUILD)/sinew/core.so

deps-build:
	@sh tools/deps.sh $(PKGS_BUILD) $(PKGS_$(LUA))

$(BUILD)/obj/core/%.o: src/core/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(OPT) -fPIC $(CFLAGS) -c $< -o $@

$(BUILD)/obj/binding/%.o: src/binding/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(OPT) -fPIC $(LUA_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/sinew/core.so: $(CORE_OBJ) $(BINDING_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LIBFLAG) $(CFLAGS) -o $@ $^ -lm

# C-only tests of the core: no Lua header, no Lua library.
$(BUILD)/c/%: spec/c/%.c $(wildcard spec/c/*.h) $(CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(OPT) $(CFLAGS) -Isrc/core -o $@ $< $(CORE_OBJ) -lm

ctests: $(CTESTS)

$(BUILD)/bench/%: bench/c/%.c $(CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(OPT) $(CFLAGS) -Isrc/core -o $@ $< $(CORE_OBJ) -lm

deps-test:
	@sh tools/deps.sh $(PKGS_TEST)

# Every Debian package a CI run installs (.ci/run), at once: its valgrind step then runs beside
# the others without two apt-get calls at the same time.
deps-ci:
	@sh tools/deps.sh $(PKGS_ALL) lua-check valgrind clang libclang-rt-14-dev lua-ldoc lua-discount luarocks

# The C tests, then every busted spec under $(LUA); ends with "N passed, M failed". Built on
# every core, the specs in as many processes at once (SINEW_PARTS). SINEW_QUICK keeps it quick:
# the hostile-Lua probe plays one round of its calls instead of four, the glTF fuzz spec mutates
# each file 30 times instead of 150, and the glTF limits that decode hundreds of megabytes wait
# for make test-all (which runs all of them, as CI, make sanitize and make valgrind do).
NPROC := $(shell nproc 2>/dev/null || echo 2)
test: deps-test
	@$(MAKE) -s -j$(NPROC) build ctests
	@SINEW_QUICK=1 SINEW_PARTS=$(NPROC) sh tools/test.sh --build $(BUILD) c $(LUA)

# Every spec under Lua 5.4, 5.3, 5.1 and LuaJIT (each against its own build), and LÖVE 11.
test-all:
	@sh tools/deps.sh $(PKGS_ALL)
	@for l in $(LUAS); do $(MAKE) -s LUA=$$l build || exit 1; done
	@$(MAKE) -s ctests
	@SINEW_COMMANDS=1 sh tools/test.sh c $(LUAS) luajit-c love love-zip demo-love demo-love2d

# LÖVE 11 under xvfb: spec/love, then a zipped .love with the native library inside, beside, and
# nowhere (tools/love_zip.sh; the zip is written by tools/zip.lua under Lua 5.4)
test-love:
	@sh tools/deps.sh $(PKGS_BUILD) $(PKGS_JSON) lua5.4 love xvfb xauth
	@$(MAKE) -s LUA=luajit build
	@sh tools/test.sh love love-zip

# Core, C tests and specs built with AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize: deps-test
	@$(MAKE) -s BUILD=build/sanitize OPT="$(SANFLAGS)" build ctests
	@SINEW_BUILD=build/sanitize SINEW_SANITIZE=1 sh tools/test.sh c $(LUA)

# The C tests and every spec under valgrind's memcheck (child processes too: the hostile-Lua
# probe of spec/probe_spec.lua): no error, no definite leak. Built with -O1 -g for readable
# reports.
valgrind: deps-test
	@sh tools/deps.sh valgrind
	@$(MAKE) -s BUILD=build/valgrind OPT="-O1 -g -fno-math-errno" build ctests
	@SINEW_BUILD=build/valgrind SINEW_VALGRIND=1 sh tools/test.sh c $(LUA)

# libFuzzer targets (spec/fuzz/fuzz_*.c) over the C core with ASan and UBSan: each runs for
# FUZZ_SECONDS from its corpus in build/fuzz/corpus/<name>; a crash or a broken invariant fails.
# FUZZ_FLAGS adds libFuzzer options: CI passes a fixed -seed and -runs so that its run is the
# same every time (a regression test); a plain `make fuzz` explores anew. tools/fuzz.sh runs them
# all, a line each, and closes with "N passed, M failed" over the targets.
FUZZ_SECONDS ?= 60
FUZZ_FLAGS ?=
FUZZERS := $(patsubst spec/fuzz/%.c,build/fuzz/%,$(wildcard spec/fuzz/fuzz_*.c))

build/fuzz/%: spec/fuzz/%.c $(wildcard spec/fuzz/*.h) spec/c/wedges.h $(CORE_SRC) $(HEADERS)
	@mkdir -p $(@D)
	clang -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined,float-cast-overflow -fno-sanitize-recover=all \
	    -Isrc/core -o $@ $< $(CORE_SRC) -lm

fuzz:
	@sh tools/deps.sh clang libclang-rt-14-dev
	@$(MAKE) -s $(FUZZERS)
	@sh tools/fuzz.sh $(FUZZ_SECONDS) "$(FUZZ_FLAGS)" $(FUZZERS)

# plain text (luacheck colours its output even into a pipe or a log)
lint:
	@sh tools/deps.sh lua-check
	luacheck -q --no-color lua spec examples bench

bench: deps-test
	@sh tools/deps.sh $(PKGS_luajit)
	@$(MAKE) -s build $(CBENCHES)
	@$(MAKE) -s LUA=luajit build
	@# the DragonBones runtime (npm, into build/dbref) that bench/dragonbones.lua compares with
	@if command -v npm >/dev/null 2>&1 || sh tools/deps.sh nodejs npm; then sh tools/dragonbones/install.sh || \
	    echo "bench: the DragonBones runtime could not be installed; its comparison is skipped"; fi
	@sh tools/bench.sh

# sinew against ozz-animation in one process (bench/ozz/bench_ozz.cc): blending and model-space
# matrices, ns per joint and the ratio sinew / ozz. ozz's runtime (the sources the harness needs)
# is compiled from OZZ_SRC with g++ and the core's flags (plus -DNDEBUG, as ozz's release build)
# into build/ozz/; sinew's core into build/ozz/sinew. Without OZZ_SRC: how to get one, exit 0.
# OZZ_CASES=<text> runs only the cases whose name holds it. See manual/performance.md.
OZZ_SRC ?=
OZZ_CASES ?=
OZZ_BUILD := build/ozz
OZZ_CXX := g++ -std=c++17 $(OPT) -DNDEBUG -Wno-ignored-attributes $(CFLAGS)
OZZ_SOURCES := base/platform.cc base/log.cc base/memory/allocator.cc base/containers/string_archive.cc \
	base/io/archive.cc base/io/stream.cc base/maths/simd_math.cc base/maths/math_archive.cc \
	base/maths/simd_math_archive.cc base/maths/soa_math_archive.cc \
	animation/runtime/skeleton.cc animation/runtime/blending_job.cc animation/runtime/local_to_model_job.cc \
	animation/offline/raw_skeleton.cc animation/offline/skeleton_builder.cc
OZZ_OBJ := $(OZZ_SOURCES:%.cc=$(OZZ_BUILD)/obj/%.o)
OZZ_VERSION = $(shell git -C "$(OZZ_SRC)" describe --tags --always 2>/dev/null || \
	sed -n 's/^Release version \(.*\)/\1/p' "$(OZZ_SRC)/CHANGES.md" | head -n 1)

bench-ozz:
	@if [ -z "$(OZZ_SRC)" ]; then \
	    echo "make bench-ozz compares sinew with ozz-animation built from source; it needs a checkout:"; \
	    echo "    git clone https://github.com/guillaumeblanc/ozz-animation /tmp/ozz-animation"; \
	    echo "    make bench-ozz OZZ_SRC=/tmp/ozz-animation"; \
	elif [ ! -f "$(OZZ_SRC)/include/ozz/animation/runtime/blending_job.h" ]; then \
	    echo "sinew: OZZ_SRC=$(OZZ_SRC) is not an ozz-animation checkout (no include/ozz/animation)" >&2; exit 1; \
	else \
	    sh tools/deps.sh $(PKGS_BUILD) g++ && \
	    $(MAKE) -s BUILD=$(OZZ_BUILD)/sinew $(OZZ_BUILD)/bench_ozz && $(OZZ_BUILD)/bench_ozz "$(OZZ_CASES)"; \
	fi

$(OZZ_BUILD)/obj/%.o: $(OZZ_SRC)/src/%.cc
	@mkdir -p $(@D)
	$(OZZ_CXX) -I$(OZZ_SRC)/include -I$(OZZ_SRC)/src -c $< -o $@

$(OZZ_BUILD)/bench_ozz: bench/ozz/bench_ozz.cc $(OZZ_OBJ) $(CORE_OBJ) $(HEADERS)
	$(OZZ_CXX) -I$(OZZ_SRC)/include -Isrc/core -DOZZ_VERSION_STR='"$(OZZ_VERSION)"' \
	    -DBENCH_FLAGS='"$(OPT) $(CFLAGS)"' -o $@ $< $(OZZ_OBJ) $(CORE_OBJ) -lm

# Dev only: the DragonBones reference data of spec/dragonbones/reference (poses and events by the
# DragonBonesJS runtime, see its README.md). Needs node 20 and npm; installs the pinned runtime
# (npm dragonbones-runtime@5.6.200) and typescript@2.9.2 into build/dbref, compiles it, and
# rewrites every reference file. The JS side of the 2-D bench: node bench/dragonbones_js.js
dragonbones-reference:
	@sh tools/dragonbones/install.sh
	@node tools/dragonbones/reference.js

demo: deps-test
	@sh tools/deps.sh $(PKGS_DATA)
	@$(MAKE) -s build
	@LUA_CPATH="$(BUILD)/?.so;;" LUA_PATH="lua/?.lua;lua/?/init.lua;;" $(LUA) examples/demo.lua
	@LUA_CPATH="$(BUILD)/?.so;;" LUA_PATH="lua/?.lua;lua/?/init.lua;;" $(LUA) examples/mocap.lua

# LDoc runs on Lua 5.1 (Debian's ldoc picks 5.1 or 5.2); lua-discount renders the guides'
# markdown, tables included; the guides' pictures are copied beside their pages
# The Fox in LÖVE (examples/love): in a window where there is a display; without one, under
# xvfb, the scripted 6 seconds with screenshots into build/screenshots/, checked
demo-love:
	@sh tools/deps.sh $(PKGS_BUILD) $(PKGS_luajit) $(PKGS_JSON) $(PKGS_DATA) love xvfb xauth
	@$(MAKE) -s LUA=luajit build
	@if [ -n "$${DISPLAY:-}" ]; then love examples/love; \
	else sh tools/demo_love.sh; fi

# The DragonBones demo (examples/love2d: two samples drawn with sinew.love2d): in a window when
# there is a display, else its scripted run under xvfb (tools/demo_love2d.sh), screenshots checked.
demo-love2d:
	@sh tools/deps.sh $(PKGS_BUILD) $(PKGS_luajit) $(PKGS_JSON) love xvfb xauth
	@$(MAKE) -s LUA=luajit build
	@if [ -n "$${DISPLAY:-}" ]; then love examples/love2d; \
	else sh tools/demo_love2d.sh; fi

# The reference and the guides as HTML in doc/ (config.ld), from scratch, then finished and
# checked by tools/docs.lua (links between guides, GitHub's heading anchors, the guides' summaries
# and pictures, the stylesheet): it fails on a link that does not resolve, a public module without its page, an
# internal module with one, or a summary that LDoc cut short.
docs:
	@sh tools/deps.sh lua5.1 lua-ldoc lua-discount
	@rm -rf doc
	ldoc -q .
	lua5.1 tools/docs.lua doc

# What `luarocks make` runs (sinew-scm-1.rockspec, build type "make"): sinew.core out of the
# source tree, in build/rock/, with the compiler, CFLAGS, LIBFLAG and Lua headers (LUA_INCDIR)
# LuaRocks passes for the Lua it installs for; rebuilt from scratch each time, since the headers
# may be another Lua's than last time. Installs nothing itself (no apt-get either): LuaRocks copies
# build/rock/sinew/core.so and lua/ into its tree.
ROCK_BUILD := build/rock
rock-core:
	@if [ ! -f "$(LUA_INCDIR)/lua.h" ]; then \
	    echo "sinew: no lua.h in LUA_INCDIR='$(LUA_INCDIR)': install the headers of that Lua (Debian: liblua5.4-dev, liblua5.3-dev, liblua5.1-0-dev or libluajit-5.1-dev)" >&2; exit 1; fi
	@rm -rf $(ROCK_BUILD)
	@$(MAKE) --no-print-directory BUILD=$(ROCK_BUILD) LUA_CFLAGS="-I$(LUA_INCDIR)" $(ROCK_BUILD)/sinew/core.so

# The README's rock command, run as printed but into build/rocktree (--tree) instead of the
# system's tree, offline; then a `require` from there that imports the Fox (with Debian's
# lua-dkjson as the JSON decoder, as the README says to install one), and a check that the clone
# holds nothing the build left behind (no ./sinew/core.so, no object files beside the sources).
rock:
	@sh tools/deps.sh $(PKGS_BUILD) $(PKGS_lua5.4) luarocks lua-dkjson
	luarocks lint sinew-scm-1.rockspec
	@before=$$(find sinew src -name '*.o' -o -name '*.so' 2>/dev/null | sort); \
	echo "luarocks --lua-version 5.4 --tree build/rocktree make"; \
	luarocks --lua-version 5.4 --tree build/rocktree make || exit 1; \
	after=$$(find sinew src -name '*.o' -o -name '*.so' 2>/dev/null | sort); \
	if [ "$$before" != "$$after" ]; then echo "rock: luarocks make left files in the source tree:" $$after >&2; exit 1; fi
	LUA_PATH="build/rocktree/share/lua/5.4/?.lua;build/rocktree/share/lua/5.4/?/init.lua;/usr/share/lua/5.4/?.lua" \
	LUA_CPATH="build/rocktree/lib/lua/5.4/?.so" \
	lua5.4 -e 'local s = require "sinew"; local a = assert(s.gltf.load("assets/fox/glTF-Binary/Fox.glb")); print("rock: sinew " .. s._VERSION .. " loads from build/rocktree and imports the Fox: " .. #a.skeleton .. " joints")'

clean:
	rm -rf build doc

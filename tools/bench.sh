#!/bin/sh
# Runs every benchmark: the C ones (build/lua5.4/bench/bench_*) and bench/*.lua under Lua 5.4 and
# LuaJIT. Prints figures; never fails on time.
set -u
echo "sinew benchmarks on $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(nproc) cores, $(date -u +%Y-%m-%d)"
for b in build/lua5.4/bench/bench_*; do
    [ -x "$b" ] && "$b"
done
for lua in lua5.4 luajit; do
    for f in bench/*.lua; do
        [ "$(basename "$f")" = common.lua ] && continue
        LUA_CPATH="build/$lua/?.so;;" LUA_PATH="bench/?.lua;spec/?.lua;lua/?.lua;lua/?/init.lua;;" "$lua" "$f"
    done
done
# (bench/dragonbones.lua runs the DragonBonesJS side, bench/dragonbones_js.js, itself when node and
# build/dbref are there: `make bench` installs the runtime from the npm registry first)

#!/bin/sh
# Packs spec/love-zip into .love files with sinew's Lua files and runs each with LÖVE (under
# xvfb), the native library (build/luajit/sinew/core.so) placed three ways: inside the .love
# (copied to the save directory by sinew.native), beside it, and nowhere (a clear error).
set -u
lib=build/luajit/sinew/core.so
[ -f "$lib" ] || { echo "love-zip: 0 passed, 1 failed (no $lib: make LUA=luajit)"; exit 1; }
out=build/love-zip
rm -rf "$out"
mkdir -p "$out/inside" "$out/beside/sinew" "$out/missing" "$out/data"
files="main.lua=spec/love-zip/main.lua conf.lua=spec/love-zip/conf.lua"
for f in $(cd lua && find sinew -name '*.lua' | sort); do files="$files $f=lua/$f"; done
# shellcheck disable=SC2086
lua5.4 tools/zip.lua "$out/inside/game.love" $files sinew/core.so="$lib" >/dev/null || exit 1
# shellcheck disable=SC2086
lua5.4 tools/zip.lua "$out/beside/game.love" $files >/dev/null || exit 1
cp "$lib" "$out/beside/sinew/core.so"
cp "$out/beside/game.love" "$out/missing/game.love"
status=0
for case in inside beside missing; do
    rm -rf "$out/data"
    XDG_DATA_HOME="$PWD/$out/data" xvfb-run -a -s "-screen 0 320x240x24" love "$out/$case/game.love" "$case" 2>&1 |
        grep '^love-zip' || { echo "love-zip-$case: 0 passed, 1 failed (love printed nothing)"; status=1; }
done
exit $status

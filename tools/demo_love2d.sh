#!/bin/sh
# Plays examples/love2d's scripted 6 seconds under xvfb: five screenshots into
# build/screenshots/love2d/, checked by the demo itself (saved, not blank, all different), and
# the frame with 100 more rigs measured (time, garbage); ends with its
# "demo-love2d: N passed, M failed" line.
set -u
[ -f build/luajit/sinew/core.so ] || { echo "demo-love2d: 0 passed, 1 failed (no build/luajit: make LUA=luajit)"; exit 1; }
rm -rf build/screenshots/love2d
mkdir -p build/screenshots/love2d
timeout 180 xvfb-run -a -s "-screen 0 1024x768x24" love examples/love2d --script "$PWD/build/screenshots/love2d" 2>&1 | grep '^demo-love2d' ||
    { echo "demo-love2d: 0 passed, 1 failed (love printed nothing)"; exit 1; }

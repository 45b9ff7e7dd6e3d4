#!/bin/sh
# Plays examples/love's scripted 6 seconds under xvfb: six screenshots into build/screenshots/,
# checked by the demo itself (saved, not blank, all different); ends with its
# "demo-love: N passed, M failed" line.
set -u
[ -f build/luajit/sinew/core.so ] || { echo "demo-love: 0 passed, 1 failed (no build/luajit: make LUA=luajit)"; exit 1; }
rm -rf build/screenshots
mkdir -p build/screenshots
xvfb-run -a -s "-screen 0 1024x768x24" love examples/love --script "$PWD/build/screenshots" 2>&1 | grep '^demo-love' ||
    { echo "demo-love: 0 passed, 1 failed (love printed nothing)"; exit 1; }

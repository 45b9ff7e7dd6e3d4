#!/bin/sh
# Runs test steps and adds up their "name: N passed, M failed" lines into the closing line
# "N passed, M failed". A step that exits non-zero without reporting a failure counts as one.
#   tools/test.sh [--build DIR] STEP...     STEP: c | lua5.4 | lua5.3 | lua5.1 | luajit | luajit-c | love |
#   love-zip | demo-love | demo-love2d
# luajit runs the specs on LuaJIT's FFI path (sinew.ffi), luajit-c on its C API path (SINEW_FFI=0).
# c runs DIR/c/test_* (DIR defaults to build/lua5.4); a Lua step runs every busted spec under that
# interpreter against build/<interpreter>/sinew/core.so, or against $SINEW_BUILD when it is set
# (with the sanitizer runtimes preloaded when $SINEW_SANITIZE is set, under valgrind's memcheck
# when $SINEW_VALGRIND is set), in $SINEW_PARTS processes at once when that is above 1.
set -u
build=${SINEW_BUILD:-build/lua5.4}
if [ "${1:-}" = "--build" ]; then
    build=$2
    shift 2
fi
log=$(mktemp)
trap 'rm -f "$log" "$log.step"' EXIT
bad=0
memcheck="valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --trace-children=yes --trace-children-skip=*/cc,*gcc*,*/cc1,*/as,*/ld*,*/collect2,*pkg-config*,*objdump"

run_step() { # name command...
    name=$1
    shift
    before=$(grep -cE '^[A-Za-z0-9_./-]+: [0-9]+ passed, [0-9]+ failed' "$log")
    { "$@"; echo "rc=$?" >"$log.step"; } 2>&1 | tee -a "$log"
    rc=$(sed 's/rc=//' "$log.step")
    after=$(grep -cE '^[A-Za-z0-9_./-]+: [0-9]+ passed, [0-9]+ failed' "$log")
    if [ "$rc" != 0 ]; then
        bad=1
        why="exit status $rc"
        [ "$rc" = 124 ] && why="stopped after $step_seconds s (SINEW_STEP_SECONDS): a spec that hangs"
        if [ "$before" = "$after" ]; then printf "\n%s: 0 passed, 1 failed (%s)\n" "$name" "$why" | tee -a "$log"; fi
    fi
}

# A Lua step that runs longer than this many seconds is stopped and counted as failed, so that
# a spec that hangs in its own process still ends the run with its summary line (80 s here for
# Lua 5.4; the sanitizers' and valgrind's steps get 3 and 20 times as long).
step_seconds=${SINEW_STEP_SECONDS:-900}
[ -n "${SINEW_SANITIZE:-}" ] && step_seconds=$((step_seconds * 3))
[ -n "${SINEW_VALGRIND:-}" ] && step_seconds=$((step_seconds * 20))

lua_step() { # interpreter [SINEW_FFI [spec files...]] (no files: every spec)
    if [ -n "${2:-}" ]; then export SINEW_FFI="$2"; else unset SINEW_FFI; fi
    interp=$1
    shift
    [ $# -gt 0 ] && shift
    if [ -n "${SINEW_BUILD:-}" ]; then
        export SINEW_CPATH="$SINEW_BUILD/?.so"
    else
        unset SINEW_CPATH
    fi
    if [ -n "${SINEW_VALGRIND:-}" ]; then
        SINEW_PROBE_ROUNDS=${SINEW_PROBE_ROUNDS:-1} SINEW_GLTF_FUZZ=${SINEW_GLTF_FUZZ:-30} timeout "$step_seconds" $memcheck "$interp" spec/run.lua "$@"
    elif [ -n "${SINEW_SANITIZE:-}" ]; then
        asan=$(${CC:-cc} -print-file-name=libasan.so)
        ubsan=$(${CC:-cc} -print-file-name=libubsan.so)
        LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 timeout "$step_seconds" "$interp" spec/run.lua "$@"
    else
        timeout "$step_seconds" "$interp" spec/run.lua "$@"
    fi
}

# A Lua step split into $SINEW_PARTS parts run at once (make test, on a machine of that many cores):
# the spec files dealt out in turn, each part's output kept apart and shown whole, part after part,
# once all have ended; each part ends with its own summary line. Exits non-zero when one did.
lua_parts() { # interpreter [SINEW_FFI]
    parts=$SINEW_PARTS
    k=0
    while [ "$k" -lt "$parts" ]; do : >"$log.files$k"; k=$((k + 1)); done
    i=0
    for f in spec/*_spec.lua; do
        echo "$f" >>"$log.files$((i % parts))"
        i=$((i + 1))
    done
    k=0
    while [ "$k" -lt "$parts" ]; do
        # shellcheck disable=SC2046 # one argument per spec file (their names hold no spaces)
        { lua_step "$1" "${2:-}" $(cat "$log.files$k") >"$log.out$k" 2>&1; echo "$?" >"$log.rc$k"; } &
        k=$((k + 1))
    done
    wait
    status=0
    k=0
    while [ "$k" -lt "$parts" ]; do
        cat "$log.out$k"
        rc=$(cat "$log.rc$k")
        if [ "$rc" != 0 ]; then
            status=1
            # a part that ended without its summary line (a crash, a hang stopped) counts as a failure
            grep -qE '^[A-Za-z0-9_./-]+: [0-9]+ passed, [0-9]+ failed' "$log.out$k" ||
                printf "\n%s: 0 passed, 1 failed (part %d of %d: exit status %s)\n" "$1" $((k + 1)) "$parts" "$rc"
        fi
        rm -f "$log.files$k" "$log.out$k" "$log.rc$k"
        k=$((k + 1))
    done
    return $status
}

c_step() {
    found=0
    for t in "$build"/c/test_*; do
        [ -x "$t" ] || continue
        found=1
        run_step "$(basename "$t")" ${SINEW_VALGRIND:+$memcheck} "$t"
    done
    [ "$found" = 1 ] || { echo "c: 0 passed, 1 failed (no C tests built in $build/c)" | tee -a "$log"; bad=1; }
}

# Lua steps in parts at once when SINEW_PARTS > 1
lua_run=lua_step
[ "${SINEW_PARTS:-1}" -gt 1 ] 2>/dev/null && lua_run=lua_parts

for step in "$@"; do
    case $step in
    c) c_step ;;
    love) run_step love xvfb-run -a -s "-screen 0 320x240x24" love spec/love ;;
    love-zip) run_step love-zip sh tools/love_zip.sh ;;
    demo-love) run_step demo-love sh tools/demo_love.sh ;;
    demo-love2d) run_step demo-love2d sh tools/demo_love2d.sh ;;
    luajit) run_step luajit $lua_run luajit 1 ;;
    luajit-c) run_step luajit-c $lua_run luajit 0 ;;
    *) run_step "$step" $lua_run "$step" ;;
    esac
done

grep -E '^[A-Za-z0-9_./-]+: [0-9]+ passed, [0-9]+ failed' "$log" |
    sed -E 's/^[^:]+: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' |
    awk -v bad="$bad" '{ p += $1; f += $2 } END { printf "%d passed, %d failed\n", p, f; exit (f > 0 || bad) ? 1 : 0 }'

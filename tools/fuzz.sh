#!/bin/sh
# Runs libFuzzer targets (make fuzz): each from its corpus in build/fuzz/corpus/<name> for SECONDS,
# with FLAGS added (CI: a fixed -seed and -runs), its log in build/fuzz/<name>.log. Prints one
# line per target, "<name>: 1 passed, 0 failed (Done N runs in S seconds)" or the log's tail and
# "<name>: 0 passed, 1 failed", then the closing line "N passed, M failed" over the targets; exits
# non-zero when one failed (a crash, a sanitizer report or a broken invariant).
#   tools/fuzz.sh SECONDS "FLAGS" FUZZER...
set -u
seconds=$1
flags=$2
shift 2
passed=0
failed=0
for f in "$@"; do
    name=$(basename "$f")
    mkdir -p "build/fuzz/corpus/$name"
    # shellcheck disable=SC2086 # FLAGS is a list of options
    if "$f" -max_total_time="$seconds" -print_final_stats=0 -artifact_prefix=build/fuzz/ $flags \
        "build/fuzz/corpus/$name" >"build/fuzz/$name.log" 2>&1; then
        echo "$name: 1 passed, 0 failed ($(grep -o 'Done [0-9]* runs in [0-9]* second' "build/fuzz/$name.log"))"
        passed=$((passed + 1))
    else
        tail -40 "build/fuzz/$name.log"
        echo "$name: 0 passed, 1 failed (log: build/fuzz/$name.log)"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

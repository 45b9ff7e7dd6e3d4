/*
 * A tiny harness for the C-only tests of the core (Box2D's test style): ENSURE(cond) and
 * ENSURE_NEAR(a, b, tol) record a failure with file and line and let the test go on;
 * RUN(test) runs a test function; END() prints "<program>: N passed, M failed" and returns the
 * exit status. A test passes when none of its checks failed.
 */
#ifndef SN_ENSURE_H
#define SN_ENSURE_H

#include <math.h>
#include <stdio.h>

static int ensure_failed_checks = 0, ensure_passed = 0, ensure_failed = 0;

#define ENSURE(cond)                                                                  \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: ENSURE(%s) failed\n", __FILE__, __LINE__, #cond); \
            ensure_failed_checks++;                                                   \
        }                                                                             \
    } while (0)

#define ENSURE_NEAR(a, b, tol)                                                              \
    do {                                                                                    \
        double ensure_a_ = (a), ensure_b_ = (b);                                            \
        if (!(fabs(ensure_a_ - ensure_b_) <= (tol))) {                                      \
            fprintf(stderr, "%s:%d: ENSURE_NEAR(%s, %s, %s) failed: %.17g vs %.17g\n", __FILE__, \
                    __LINE__, #a, #b, #tol, ensure_a_, ensure_b_);                          \
            ensure_failed_checks++;                                                         \
        }                                                                                   \
    } while (0)

#define RUN(test)                                          \
    do {                                                   \
        int ensure_before_ = ensure_failed_checks;         \
        test();                                            \
        if (ensure_failed_checks == ensure_before_) {      \
            ensure_passed++;                               \
        } else {                                           \
            ensure_failed++;                               \
            fprintf(stderr, "  in test %s\n", #test);      \
        }                                                  \
    } while (0)

#define END(name)                                                                     \
    (printf("%s: %d passed, %d failed\n", (name), ensure_passed, ensure_failed),     \
     ensure_failed == 0 ? 0 : 1)

/* Deterministic random numbers in [0, 1) for property tests (Park-Miller). */
static double ensure_random(unsigned long *state) {
    *state = (*state * 16807ul) % 2147483647ul;
    return (double)(*state - 1) / 2147483646.0;
}

#endif

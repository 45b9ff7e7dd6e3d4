/* Shared by the C benchmarks: a CPU-time clock and the figure line format. */
#ifndef SN_BENCH_H
#define SN_BENCH_H

#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* seconds of CPU time used by this process (the benchmarks run one thread): on a shared machine,
   time the scheduler gives other processes does not count, as it would on a wall clock */
static double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* `size` bytes of malloc'd memory, or the benchmark ends (it has nothing to measure without it) */
static inline void *bench_alloc(size_t size) {
    void *p = malloc(size);
    if (p == NULL) exit(1);
    return p;
}

/* one figure line, in the format of bench/common.lua */
static void bench_report(const char *what, double value, const char *unit) {
    printf("%-7s %-58s %10.1f %s\n", "c", what, value, unit);
}

#endif

/*
 * Shared by the fuzz targets: turns the fuzzer's bytes into numbers. Past the end it reads zeros,
 * so every input decodes to something. Numbers come out as small grid values most of the time
 * (duplicates, collinear and cocircular cases are common then) and as raw doubles otherwise
 * (NaN, infinities, huge and tiny values).
 */
#ifndef SN_FUZZ_READER_H
#define SN_FUZZ_READER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
} reader;

static unsigned read_byte(reader *r) { return r->at < r->n ? r->p[r->at++] : 0u; }

/* an integer in [lo, hi] */
static int read_int(reader *r, int lo, int hi) {
    unsigned v = read_byte(r) | (read_byte(r) << 8);
    return lo + (int)(v % (unsigned)(hi - lo + 1));
}

static double read_raw(reader *r) {
    uint8_t b[8];
    double d;
    int i;
    for (i = 0; i < 8; i++) b[i] = (uint8_t)read_byte(r);
    memcpy(&d, b, sizeof d);
    return d;
}

/* mostly grid values in [-4, 4] by quarters, sometimes anything at all */
static double read_number(reader *r) {
    unsigned tag = read_byte(r);
    if (tag < 200u) return ((int)(tag % 33u) - 16) * 0.25;
    if (tag < 240u) return (read_int(r, 0, 20000) - 10000) * 1e-3;
    return read_raw(r);
}

/* a float as a pose may hold it: the number as read (NaN, infinite, huge or tiny now and then) */
static float read_float(reader *r) { return (float)read_number(r); }

/* a weight: mostly in [0, 1] (0 and 1 often), sometimes anything */
static double read_weight(reader *r) {
    unsigned tag = read_byte(r);
    if (tag < 64u) return 0.0;
    if (tag < 128u) return 1.0;
    if (tag < 224u) return (tag - 128u) / 96.0;
    return read_number(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef SN_FUZZ_REPLAY
/* Built with -DSN_FUZZ_REPLAY (and without -fsanitize=fuzzer), a target replays the files named
   on its command line and says which check failed:
   cc -DSN_FUZZ_REPLAY -g -Isrc/core -Ispec/fuzz spec/fuzz/fuzz_chain.c src/core/ *.c -lm */
#include <stdio.h>
#include <stdlib.h>
#define FUZZ_CHECK(cond)                                                                      \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n", __FILE__, __LINE__, #cond);     \
            abort();                                                                          \
        }                                                                                     \
    } while (0)

int main(int argc, char **argv) {
    int i;
    for (i = 1; i < argc; i++) {
        static uint8_t buf[1 << 20];
        FILE *f = fopen(argv[i], "rb");
        size_t n;
        if (f == NULL) {
            perror(argv[i]);
            return 2;
        }
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        printf("%s: ok\n", argv[i]);
    }
    return 0;
}
#else
/* the fuzzer's way of saying "this must never happen": a crash it reports */
#define FUZZ_CHECK(cond)                   \
    do {                                   \
        if (!(cond)) __builtin_trap();     \
    } while (0)
#endif

#endif

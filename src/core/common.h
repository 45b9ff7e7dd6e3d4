/*
 * sinew core: shared definitions.
 *
 * CONVENTIONS (every header of src/core follows them)
 *   - Plain C99, no Lua header; the core never allocates in per-frame functions, never prints,
 *     never calls exit or abort. Failures return an sn_status and, where an sn_error is given,
 *     a lowercase message naming what is wrong (the binding raises it as a Lua error).
 *   - Quaternions are stored x, y, z, w (w is the scalar part); rotations are right-handed;
 *     angles are radians; vectors are x, y, z.
 *   - Inputs come first, outputs are passed last.
 *   - Objects that live across frames are sized once: a `*_size` function says how many bytes
 *     they need, an `*_init` function builds them inside caller-owned memory of that size.
 */
#ifndef SN_COMMON_H
#define SN_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/// Result of a core call. SN_OK is zero; every failure is non-zero.
typedef enum sn_status {
    SN_OK = 0,      ///< success
    SN_EINVAL = 1,  ///< an argument or a definition is invalid
    SN_ERANGE = 2,  ///< an index or a count is out of range
    SN_ENOMEM = 3   ///< caller-provided memory is too small (or a construction-time scratch failed)
} sn_status;

/// Room for a failure message. Pass NULL where no message is wanted.
typedef struct sn_error {
    sn_status code;  ///< the status of the failure, SN_OK while none happened
    int arg;         ///< which parameter of the failing call is at fault (1-based), 0 if unknown
    char msg[200];   ///< lowercase message without final period, names in single quotes
} sn_error;

/// Records a failure in `err` (which may be NULL), printf-style; returns `code`.
sn_status sn_fail(sn_error *err, sn_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/// Like sn_fail, and records that parameter `arg` (1-based) of the failing call is at fault.
sn_status sn_fail_arg(sn_error *err, int arg, sn_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/// An allocator with the contract of Lua's lua_Alloc, for the scratch memory that some
/// constructors (validate, size, init) need for a moment: fn(ud, NULL, 0, n) returns n bytes or
/// NULL; fn(ud, p, n, 0) frees p (a block of n bytes) and returns NULL. The Lua binding passes
/// the Lua state's own allocator (lua_getallocf), so a host's memory limits see these blocks too.
typedef void *(*sn_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

/// An allocator and its user data. Definitions hold a pointer to one; NULL means malloc/free.
typedef struct sn_allocator {
    sn_alloc_fn fn;  ///< the allocation function
    void *ud;        ///< its first argument
} sn_allocator;

/// `size` bytes of scratch from `a` (malloc when `a` is NULL); NULL when out of memory.
void *sn_scratch_alloc(const sn_allocator *a, size_t size);
/// Frees scratch of `size` bytes taken from `a` by sn_scratch_alloc; NULL `p` is ignored.
void sn_scratch_free(const sn_allocator *a, void *p, size_t size);

/// Records that parameter `arg` is out of its range, in the one notation of every message:
/// "<what> <v> is out of range (<lo> .. <hi>)" (numbers as %g); returns SN_EINVAL.
sn_status sn_fail_range(sn_error *err, int arg, const char *what, double v, double lo, double hi);

/// 1 when x is neither NaN nor infinite (NaN - NaN and inf - inf are NaN; this also holds
/// where isfinite() would be folded away by -ffast-math).
static inline int sn_isfinite(double x) { return x - x == 0.0; }

/// 1 when the n floats at `v` are all finite: by their bits, in one pass without a branch per
/// value (a float is infinite or NaN when its exponent bits are all ones).
static inline int sn_floats_finite(const float *v, size_t n) {
    uint32_t u;
    int bad = 0;
    size_t k;
    for (k = 0; k < n; k++) {
        memcpy(&u, v + k, sizeof u);
        bad |= (u & 0x7f800000u) == 0x7f800000u;
    }
    return !bad;
}

/// Rounds `n` up to a multiple of 16, the alignment of every block the core lays out.
#define SN_ALIGN16(n) (((size_t)(n) + 15u) & ~(size_t)15u)

#endif

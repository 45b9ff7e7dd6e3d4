/*
 * sinew core: the binary side of glTF 2.0 import. The .glb container, base64 `data:` URIs,
 * accessors (component types, normalised integers, strides, matrix column padding, sparse
 * substitution) decoded into floats or unsigned integers, and the interleaving of vertex
 * attributes. The JSON, the node graph and the naming are Lua's (lua/sinew/gltf/).
 *
 * CONVENTIONS
 *   - Every byte of the file is read through a bounds check first: offsets, lengths, strides and
 *     counts are checked against the bytes that hold them, with no arithmetic that can overflow
 *     (sizes are size_t, counts are limited by SN_GLTF_MAX_VALUES). Multi-byte values are read
 *     little-endian byte by byte, whatever the host and the alignment.
 *   - Nothing here allocates: outputs go to caller buffers whose room is passed and checked.
 *   - Messages are lowercase, name the fault and count from 0 where glTF does (the Lua side puts
 *     the JSON path of the accessor or buffer view in front); numbers as %g or integers.
 *   - Dequantisation follows the glTF 2.0 specification (3.11): normalised signed values
 *     max(c / (2^(b-1) - 1), -1), unsigned c / (2^b - 1); values that are not normalised come
 *     out as they are.
 */
#ifndef SN_GLTF_H
#define SN_GLTF_H

#include <stdint.h>

#include "common.h"

/// glTF component types (accessor.componentType).
enum {
    SN_GLTF_BYTE = 5120,            ///< signed 8-bit
    SN_GLTF_UNSIGNED_BYTE = 5121,   ///< unsigned 8-bit
    SN_GLTF_SHORT = 5122,           ///< signed 16-bit
    SN_GLTF_UNSIGNED_SHORT = 5123,  ///< unsigned 16-bit
    SN_GLTF_UNSIGNED_INT = 5125,    ///< unsigned 32-bit
    SN_GLTF_FLOAT = 5126            ///< IEEE 754 single precision
};

/// Most values (elements times components) one accessor may decode to: a file cannot ask for
/// more memory than this per accessor, whatever its counts say (a sparse accessor without a
/// buffer view has no bytes to bound its count).
#define SN_GLTF_MAX_VALUES (1 << 24)
/// Most components of an element (MAT4).
#define SN_GLTF_MAX_COMPONENTS 16

/// The two chunks of a .glb: pointers into the caller's bytes.
typedef struct sn_gltf_glb {
    const unsigned char *json;  ///< the JSON chunk (not zero-terminated)
    size_t json_size;           ///< its bytes
    const unsigned char *bin;   ///< the BIN chunk, or NULL when there is none
    size_t bin_size;            ///< its bytes (0 when there is none)
} sn_gltf_glb;

/// Splits the .glb in `data` (`size` bytes) into its JSON and BIN chunks: checks the magic
/// "glTF", version 2, the total length and every chunk length against the bytes there are, and
/// that the first chunk is JSON. Chunks after the BIN chunk (or of unknown types) are skipped.
sn_status sn_gltf_glb_split(const unsigned char *data, size_t size, sn_gltf_glb *out, sn_error *err);

/// The bytes the base64 text `in` (`size` characters, padding optional) decodes to; 0 for an
/// empty text. An upper bound only for text that sn_gltf_base64_decode refuses.
size_t sn_gltf_base64_size(const char *in, size_t size);
/// Decodes base64 text (standard alphabet, `=` padding optional) into `out` (`room` bytes, at
/// least sn_gltf_base64_size); `*written` gets the bytes written. Refuses a character outside
/// the alphabet (naming its position, from 0), padding in the middle and a length that no
/// base64 text has.
sn_status sn_gltf_base64_decode(const char *in, size_t size, unsigned char *out, size_t room, size_t *written,
                                sn_error *err);

/// A buffer view resolved against the bytes of its buffer.
typedef struct sn_gltf_view {
    const unsigned char *buffer;  ///< the buffer's bytes
    size_t buffer_size;           ///< how many there are
    size_t offset;                ///< bufferView.byteOffset
    size_t length;                ///< bufferView.byteLength
    size_t stride;                ///< bufferView.byteStride, 0 when absent (tightly packed)
} sn_gltf_view;

/// An accessor with its buffer views resolved (the Lua side checks the JSON indices).
typedef struct sn_gltf_accessor {
    int component;                     ///< SN_GLTF_* component type
    int normalized;                    ///< 1: integers dequantised to [0, 1] or [-1, 1]
    int rows, columns;                 ///< SCALAR 1x1, VECn nx1, MATn nxn
    size_t count;                      ///< elements, 1 .. (values limited by SN_GLTF_MAX_VALUES)
    const sn_gltf_view *view;          ///< NULL: every element 0 before the sparse substitution
    size_t offset;                     ///< accessor.byteOffset within the view
    size_t sparse_count;               ///< 0: not sparse; else elements substituted
    const sn_gltf_view *sparse_indices;   ///< the view of the sparse indices
    size_t sparse_indices_offset;      ///< their byteOffset within it
    int sparse_indices_component;      ///< SN_GLTF_UNSIGNED_BYTE, _SHORT or _INT
    const sn_gltf_view *sparse_values;    ///< the view of the substituted values
    size_t sparse_values_offset;       ///< their byteOffset within it
} sn_gltf_accessor;

/// Fills `a` with an empty accessor: float scalars, no view, not sparse.
void sn_gltf_accessor_init(sn_gltf_accessor *a);
/// Checks everything sn_gltf_accessor_read reads: the component type (and that only 8- and
/// 16-bit integers are normalised), the element shape, the count (at least 1; values at most
/// SN_GLTF_MAX_VALUES), every view within its buffer, the stride (0, or at least an element),
/// the elements within the view, and for sparse accessors the index type, the indices and values
/// within their views. Sparse indices are checked in sn_gltf_accessor_read (strictly increasing,
/// below count).
sn_status sn_gltf_accessor_validate(const sn_gltf_accessor *a, sn_error *err);
/// Number of values the accessor decodes to: count x rows x columns (0 for an invalid one).
size_t sn_gltf_accessor_values(const sn_gltf_accessor *a);
/// Decodes the accessor into `out` (`room` floats, at least sn_gltf_accessor_values), element
/// after element, matrices column-major, dequantised; validates first. A failure writes
/// nothing useful to `out`.
sn_status sn_gltf_accessor_read(const sn_gltf_accessor *a, float *out, size_t room, sn_error *err);
/// The same as unsigned integers, for indices and joints: the component type must be an
/// unsigned integer type and the accessor not normalised.
sn_status sn_gltf_accessor_read_uint(const sn_gltf_accessor *a, uint32_t *out, size_t room, sn_error *err);

/// One vertex attribute of sn_gltf_interleave: `width` floats per vertex from `values`, written
/// as `slots` floats (the missing ones from `fill`, e.g. a colour's alpha 1).
typedef struct sn_gltf_attribute {
    const float *values;  ///< count x width floats
    int width;            ///< floats per vertex in `values`, 1 .. 4
    int slots;            ///< floats per vertex in the output, width .. 4
    float fill;           ///< the value of the slots past `width`
} sn_gltf_attribute;

/// Writes `count` vertices of the `n` attributes into `out` (room floats: count x the sum of
/// the slots), attribute after attribute within a vertex.
sn_status sn_gltf_interleave(const sn_gltf_attribute *attrs, int n, size_t count, float *out, size_t room,
                             sn_error *err);

/// Scales each vertex's `width` weights (`count` vertices) so that they sum to 1, as skinning
/// needs (glTF requires it of exporters, and some do not): a vertex with a negative or
/// non-finite weight, or whose weights sum to 0, is left as it is.
void sn_gltf_normalize_weights(float *values, size_t count, int width);

/// Applies the affine map `m` (2 x 3, column-major: u' = m0 u + m2 v + m4, v' = m1 u + m3 v +
/// m5) to `count` texture coordinates (pairs of floats) in place: a texture transform baked
/// into the coordinates. A result past float range is refused, the coordinates left as they
/// were.
sn_status sn_gltf_transform_uv(float *values, size_t count, const double m[6], sn_error *err);

/// Maps joint indices of a skin (values of a JOINTS_n attribute, as floats) through `map`
/// (`map_size` entries: skin joint -> sinew joint, 0-based), in place. A value that is not an
/// index of the map is refused with its position.
sn_status sn_gltf_map_joints(float *values, size_t n, const int *map, int map_size, sn_error *err);

/// 1 when the path `path` (`path_size` bytes) is the folder `root` (`root_size` bytes) or lies
/// below it, else 0. Both must be absolute and resolved (a realpath: no ".", "..", links or
/// doubled separators); a separator ends `root` ("/srv/a" holds "/srv/a/b", not "/srv/ab"). The
/// separator is '/' (and '\\' on Windows). An empty `root` holds nothing. The file reader of
/// the glTF importer refuses a file whose real path is not within its folder's real path.
int sn_gltf_path_within(const char *root, size_t root_size, const char *path, size_t path_size);

/* ---- Animation keys (gltf_keys.c) ---------------------------------------------------------- */

/// What sn_gltf_key_times_check found: the first fault of a sampler's key times.
enum {
    SN_GLTF_TIMES_OK = 0,            ///< finite, not negative, strictly increasing
    SN_GLTF_TIMES_NOT_FINITE = 1,    ///< key *at is NaN or infinite
    SN_GLTF_TIMES_NEGATIVE = 2,      ///< key 0 is below 0
    SN_GLTF_TIMES_NOT_INCREASING = 3 ///< key *at is not after key *at - 1
};
/// The narrowest `widest` angle (radians) of sn_gltf_slerp_added and sn_gltf_slerp_fill: a
/// narrower one is taken as this, so that an interval gets at most 1571 pieces (pi/2 / 1e-3).
/// glTF's 0.01 degree tolerance gives 0.176 rad.
#define SN_GLTF_SLERP_MIN_WIDEST 1e-3
/// Checks `n` key times (seconds, as the file's floats): returns SN_GLTF_TIMES_OK or the first
/// fault, non-finite keys first, with the key's index (from 0) in `*at`.
int sn_gltf_key_times_check(const float *times, size_t n, size_t *at);
/// Makes `keys` rotation keys (x, y, z, w floats) unit, each in the hemisphere of the one before
/// (the shortest arc), into `unit` (4 x keys doubles, caller-owned). Returns 1, or 0 with the
/// index (from 0) of the first key whose length is below 1e-12 or not finite in `*at`.
int sn_gltf_unit_rotations(const float *values, size_t keys, double *unit, size_t *at);
/// The keys sn_gltf_slerp_fill adds between the `keys` unit keys of a LINEAR rotation track at
/// `times`: an interval whose keys lie more than `widest` radians apart (4-D angle w) is cut into
/// ceil(w / widest) equal pieces on the slerp arc, unless a piece would last less than 1e-6 of
/// max(1, its end time) (float32 key times could not tell the keys apart). At most 1 + w / widest
/// per interval, w <= pi / 2.
size_t sn_gltf_slerp_added(const float *times, const double *unit, size_t keys, double widest);
/// Writes the track with the keys sn_gltf_slerp_added counts added: times into `out_times`
/// and x, y, z, w floats into `out_values`, `room` keys of each (at least keys + the added
/// keys: else SN_ENOMEM). With `widest` at pi or more, the unit keys as floats.
sn_status sn_gltf_slerp_fill(const float *times, const double *unit, size_t keys, double widest, float *out_times,
                             float *out_values, size_t room, sn_error *err);

#endif

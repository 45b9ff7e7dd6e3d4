/*
 * sinew core: 2-D Delaunay triangulation with exact predicates, used by the triangulated and grid
 * blend spaces.
 *
 * CONVENTIONS: points are stored x, y pairs (point-major); triangles are index triples in
 * counter-clockwise order, indices 0-based into the caller's point array; nothing here allocates:
 * the caller passes a scratch block of sn_delaunay_scratch_size(n) bytes. The predicates are exact
 * for finite doubles whose products neither overflow nor underflow. The triangulation does not
 * depend on the order of the points: they are swept in lexicographic (x, y) order, and four
 * cocircular points are split by the diagonal through the lexicographically smallest of them
 * (a symbolic perturbation of the lifted points), so the result is unique.
 */
#ifndef SN_DELAUNAY_H
#define SN_DELAUNAY_H

#include <stddef.h>

/// Sign (+1, 0, -1) of the orientation of a, b, c: +1 when counter-clockwise. Exact.
int sn_delaunay_orient(const double *a, const double *b, const double *c);
/// Sign of the in-circle test: +1 when d lies inside the circle through a, b, c (a, b, c
/// counter-clockwise), 0 on it, -1 outside. Exact.
int sn_delaunay_incircle(const double *a, const double *b, const double *c, const double *d);
/// Bytes of scratch that sn_delaunay_build needs for n points (n >= 0).
size_t sn_delaunay_scratch_size(int n);
/// Most triangles that sn_delaunay_build writes for n points: 2n (the exact bound is 2n - 5).
int sn_delaunay_max_triangles(int n);
/// Delaunay triangulation of n distinct points `xy` (2n doubles). Writes counter-clockwise
/// triangles as index triples into `tris` (room for 3 * sn_delaunay_max_triangles(n) ints) and,
/// when `nbrs` is not NULL, the neighbour across the edge opposite each vertex (same layout, -1
/// on the hull); returns the number of triangles, 0 when n < 3 or the points are all on a line.
int sn_delaunay_build(const double *xy, int n, void *scratch, int *tris, int *nbrs);

#endif

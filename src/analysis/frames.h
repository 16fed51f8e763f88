/*
 * analysis/frames.h — building frame trees (frames.c), shared with the
 * views that merge frames into new trees (frame_views.c: callers,
 * callees, matching two profiles).
 */
#ifndef PK_ANALYSIS_FRAMES_H
#define PK_ANALYSIS_FRAMES_H

#include "model/model.h"
#include "profkit/analysis.h"
#include "util/kmap.h"

#define PK_FRAME_NAME_MAX 1024

/* A frame tree under construction: frames appended in order, parents
 * before children; equal names under one parent merge. */
typedef struct pk_frames_builder {
    const pk_profile *p;
    pk_frame *f;
    size_t n, cap;
    pk_kmap kids; /* (parent frame, name hash) -> frame */
} pk_frames_builder;

uint64_t pk_frames_hash_name(const char *s);
/* pk_frames_build() (loops: pk_frames_build_loops()) for a metric whose
 * values combine by `how`: min and max combine a frame's contexts instead
 * of adding them, its self value from their exclusive values (`excl`,
 * NULL: NaN) instead of its inclusive value less its children's. */
pk_status pk_frames_build_combined(const pk_profile *p, const double *incl, const double *excl,
                                   pk_combine how, int loops, pk_frame **frames, size_t *n);
/* pk_frames_build_paths() for a metric whose values combine by `how`. */
pk_status pk_frames_build_paths_combined(const pk_profile *p, const double *incl,
                                         const double *excl, pk_combine how, pk_frame **frames,
                                         size_t *n);
/* pk_diff_functions_exact() where a function's frames combine by `how`
 * (a min/max metric's: its smallest or largest value, not their sum). */
pk_status pkq_diff_functions_combined(const pk_profile *pa, const pk_frame *a, size_t n_a,
                                      const pk_diff_exact *ea, const pk_profile *pb,
                                      const pk_frame *b, size_t n_b, const pk_diff_exact *eb,
                                      pk_combine how, pk_diff_row **rows, size_t *n_rows);
/* The child of `parent` (PK_NONE: a new root) with name hash `hash`,
 * created (named by `context`, values 0) if it is not there yet. */
pk_status pk_frames_add(pk_frames_builder *b, pk_index parent, pk_index context, uint64_t hash,
                        pk_index *out);
/* Is `name` one a writer made up for what is no function in the model
 * (frame_names.c): an entry point ("main thread") or a call site's
 * instruction ("libfoo.so+0x1a86d")? */
int pk_frames_stand_in(const char *name);
/* Context i's name as calling paths compare it: its display name, with
 * an unknown function's module path cut to the file name, as
 * pk_context_name() shows modules. Returns the length it needed. */
size_t pk_frames_key_name(const pk_profile *p, pk_index i, char *buf, size_t size);
/* Do frames of two profiles have the same pk_frames_key_name()? */
int pk_frames_same_name(const pk_profile *pa, const pk_frame *a, const pk_profile *pb,
                        const pk_frame *b);
/* Fill in self values from the inclusive ones. */
void pk_frames_finish(pk_frame *f, size_t n);

#endif /* PK_ANALYSIS_FRAMES_H */

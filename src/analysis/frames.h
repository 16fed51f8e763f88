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
/* The child of `parent` (PK_NONE: a new root) with name hash `hash`,
 * created (named by `context`, values 0) if it is not there yet. */
pk_status pk_frames_add(pk_frames_builder *b, pk_index parent, pk_index context, uint64_t hash,
                        pk_index *out);
/* Fill in self values from the inclusive ones. */
void pk_frames_finish(pk_frame *f, size_t n);

#endif /* PK_ANALYSIS_FRAMES_H */

/*
 * model/skeleton.h — a profile's structure (everything but its values
 * and trace samples) as one message, for the members of a parallel merge.
 */
#ifndef PK_MODEL_SKELETON_H
#define PK_MODEL_SKELETON_H

#include "model.h"
#include "util/buf.h"

pk_status pk_skeleton_encode(const pk_profile *p, pk_buf *out);
/* A new profile with that structure: empty planes, trace lines without
 * samples. A damaged message fails it (PK_ERR_IO). */
pk_status pk_skeleton_decode(const void *data, uint64_t len, pk_profile **out);

#endif

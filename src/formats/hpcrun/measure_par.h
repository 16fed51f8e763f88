/*
 * formats/hpcrun/measure_par.h — a measurement directory read by several
 * members of a parallel build (util/team.h, profkit/parallel.h), giving
 * the same profile hm_open() gives, split by location.
 *
 * Each member reads a contiguous share of the *.hpcrun files (in name
 * order) into its own builder: its *piece*. The pieces' tables —
 * modules, files, functions with their keys, contexts in creation order,
 * metrics, locations' identifier tuples, symbol look-ups, counts — go to
 * member 0, which merges them in member order exactly as one builder
 * reading every file in order would have created them (contexts are
 * merged by the same key, so creation order, hence every id, is the
 * serial one) and sends the merged tables back. Each member then builds
 * the profile's skeleton from them (hm_layout, hm_finish_model: the same
 * code as hm_open) and fills in its own locations' point values and
 * traces, mapping its piece's indexes through the merged tables' keys.
 */
#ifndef PK_FORMATS_HPCRUN_MEASURE_PAR_H
#define PK_FORMATS_HPCRUN_MEASURE_PAR_H

#include <stdint.h>

#include "model/model.h"
#include "util/buf.h"

typedef struct hm_piece hm_piece;

/* Read dir/names[0..n) (this member's share) into a new piece. */
pk_status hm_piece_read(const char *dir, char **names, size_t n, uint32_t open_flags,
                        hm_piece **out);
void hm_piece_free(hm_piece *pc);
/* The piece's tables (not its values), for member 0. */
pk_status hm_piece_encode(const hm_piece *pc, pk_buf *out);
/* Member 0: the pieces' tables (n of them, in member order) merged. */
pk_status hm_pieces_merge(const unsigned char *const *data, const uint64_t *lens, uint32_t n,
                          pk_buf *out);
/* The profile of the measurement at `path`: every location, the values
 * and traces of this piece's only (its first location is `first` of the
 * profile, location 0 being the summary; its others follow), point values
 * only (nothing derived). The piece's values are moved out of it. */
pk_status hm_piece_finish(hm_piece *pc, const unsigned char *merged, uint64_t len, const char *path,
                          const char *dir, uint32_t first, pk_profile **out);
/* Locations in the piece; input bytes it read. */
uint32_t hm_piece_locations(const hm_piece *pc);
uint64_t hm_piece_bytes(const hm_piece *pc);

#endif

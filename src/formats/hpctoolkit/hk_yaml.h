/*
 * formats/hpctoolkit/hk_yaml.h — what profkit reads of a database's
 * metrics/default.yaml (HPCToolkit's METRICS.yaml taxonomy, field notes
 * §a): the statistics its `inputs` name, the metrics its `roots` present,
 * and where entries can be added to the text as it is.
 *
 * The reader keeps the file's bytes as a profile attribute (so a round
 * trip carries hpcprof's derived metrics, descriptions and order over)
 * and checks that every input exists in meta.db (hpcviewer refuses the
 * database otherwise); the writer carries the text over when it still
 * fits the database it writes, adding entries for metrics it does not
 * mention. Parsed with libyaml's event API, iteratively: nesting depth
 * costs heap, not stack, and aliases are never expanded.
 */
#ifndef PK_FORMATS_HPCTOOLKIT_HK_YAML_H
#define PK_FORMATS_HPCTOOLKIT_HK_YAML_H

#include <stddef.h>

#include "model/model.h"

/* The attribute (profile entity) that holds the file's bytes. */
#define HK_YAML_ATTR "hpctoolkit:metrics/default.yaml"

/* The comment line profkit's writer puts first in the taxonomy of a
 * database whose summary profile holds sums that are not its profiles'
 * (pk_profile.summary_inexact): YAML readers (hpcviewer, hpcprof,
 * Hatchet) skip it; profkit's reader then adds up the profiles. */
#define HK_YAML_INEXACT                                                                            \
    "# profkit: the summary profile's sums are the source's, not the sums of these profiles\n"

typedef struct hk_yaml_input { /* one entry of `inputs` (defaults filled in) */
    const char *metric, *scope, *formula, *combine;
} hk_yaml_input;

/* Roots nested deeper than this many `children` levels have no parent. */
#define HK_YAML_MAX_NEST 16

typedef struct hk_yaml_root { /* a presented metric of `roots`, at any depth */
    const char *name, *description, *unit;
    size_t parent; /* the root whose `children` hold it, or (size_t)-1 */
} hk_yaml_root;

typedef struct hk_yaml {
    hk_yaml_input *inputs;
    size_t n_inputs;
    hk_yaml_root *roots;
    size_t n_roots;
    /* Byte offsets where new items of the block sequences `inputs` and
     * `roots` can be inserted (each at the start of a line, indented by
     * *_indent), or (size_t)-1 when the text's layout does not allow it. */
    size_t inputs_at, roots_at;
    size_t inputs_indent, roots_indent;
    /* Anchors defined again after their first definition (YAML lets an
     * alias name the latest; the writer must not add such a redefinition,
     * which would silently change what the text's own aliases mean). */
    size_t anchors_redefined;
    pk_arena arena; /* the strings */
} hk_yaml;

/* Parse `len` bytes. PK_ERR_FORMAT (message with line and column) when
 * the text is not YAML, an alias names an anchor not defined before it
 * (YAML loaders such as hpcviewer's refuse that), or its top level is not
 * a mapping. Free with
 * hk_yaml_free() whatever the result. */
pk_status hk_yaml_parse(const char *text, size_t len, hk_yaml *out);
void hk_yaml_free(hk_yaml *y);

/* Does the profile have a summary column for this input (metric and scope
 * names, formula text, combine name)? */
int hk_yaml_input_known(const pk_profile *p, const hk_yaml_input *in);

#endif

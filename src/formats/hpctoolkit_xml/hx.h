/*
 * formats/hpctoolkit_xml/hx.h — shared internals of the reader of older
 * HPCToolkit databases built around experiment.xml: the legacy 2.x
 * databases (experiment.xml 2.0-2.2 + dense *.metric-db files, or the
 * experiment-1.mdb / experiment.mt files hpcviewer merges them into, and
 * *.hpctrace traces), and the 2021-22 draft "Prof2" database (experiment.xml
 * 4.0 + sparse big-endian profile.db / cct.db / trace.db).
 * docs/hpctoolkit-legacy.md and docs/hpctoolkit-draft.md say what every
 * value means and where the tools differ from the DTD.
 *
 * experiment.xml is parsed once, streaming (expat), into an hx_exp: its
 * tables and its calling-context tree with the summary values <M> of each
 * node. hx_build_*() turn that into the model; the dense files then add
 * one location each. Every number read from a file is checked against the
 * bytes that exist before use; errors name file, structure and offset.
 */
#ifndef PK_FORMATS_HX_H
#define PK_FORMATS_HX_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "util/idset.h"
#include "util/kmap.h"

/* Context ids from here on are the entry points the reader adds; node and
 * row ids must stay below. */
#define HX_ENTRY_ID_BASE 0xFFFFFFF0u

/* One file of the database, mapped or in memory. */
typedef struct hx_file {
    const char *name; /* base name, for messages and location ids */
    const unsigned char *data;
    uint64_t size;
} hx_file;

/* Node tags of the calling-context tree. */
enum hx_tag { HX_ROOT, HX_PF, HX_PR, HX_A, HX_L, HX_C, HX_S };

typedef struct hx_node {
    uint32_t parent; /* node index; PK_NONE for the root */
    uint32_t first_kid, last_kid, next_sib, n_kids;
    uint8_t tag;
    uint64_t id;   /* the i attribute (root: 0) */
    uint32_t line; /* l */
    int64_t lm, f; /* load module / file ids, -1 if absent */
    const char *n; /* procedure: id or name as written (interned), or NULL */
    uint64_t v;    /* address (C), valid if has_v */
    int has_v;
    uint64_t it; /* trace id, valid if has_it */
    int has_it;
    uint64_t xml_off; /* byte offset of the element */
    int no_db_id;     /* 4.0: written with a negative i (id assigned later) */
} hx_node;

/* A summary value <M n= v=> of a node. */
typedef struct hx_mval {
    uint32_t node;
    uint32_t metric; /* the Metric's i */
    double value;
    uint64_t xml_off;
} hx_mval;

/* <Metric> (summary column) or <MetricDB> (per-thread column). */
typedef struct hx_metric {
    uint32_t i;
    const char *name, *desc;
    char t;              /* 'i'nclusive, 'e'xclusive, 'n'il */
    uint32_t db_id;      /* MetricDB db-id (column in the dense rows) */
    int64_t db_num;      /* MetricDB db-num-metrics, -1 if absent */
    int64_t db_header;   /* MetricDB db-header-sz, -1 if absent */
    const char *db_glob; /* MetricDB db-glob, or NULL */
    const char *view;    /* 4.0 Metric: <MetricFormula t="view" frm=>, or NULL */
    uint64_t xml_off;
} hx_metric;

typedef struct hx_table_ent {
    uint64_t id;
    const char *name;
} hx_table_ent;

typedef struct hx_exp {
    unsigned major, minor;
    const char *title;
    hx_node *nodes;
    uint32_t n_nodes;
    size_t cap_nodes;
    hx_mval *mvals;
    size_t n_mvals, cap_mvals;
    hx_metric *metrics, *dbs; /* <Metric>, <MetricDB> */
    size_t n_metrics, cap_metrics, n_dbs, cap_dbs;
    hx_table_ent *lms, *files, *procs;
    size_t n_lms, cap_lms, n_files, cap_files, n_procs, cap_procs;
    hx_table_ent *idnames; /* 4.0 IdentifierNameTable: kind -> name */
    size_t n_idnames, cap_idnames;
    int has_trace_db;
    double trace_units; /* ticks per second, 0 if not given */
    uint64_t trace_min, trace_max;
    int64_t trace_header;
} hx_exp;

/* The reader: the profile being built and what the parts share. */
typedef struct hx_reader {
    pk_profile *p;
    uint32_t flags;
    hx_exp x;
    const hx_file *xml;
    uint32_t *ctx_of_node; /* node -> context index (malloc) */
    uint32_t n_plain_cols; /* per-thread columns: raw id = db-id */
    uint32_t *db_col;      /* db-id -> plain column, by db-id (malloc) */
    uint32_t n_db_ids;
    pk_kmap trace_ids; /* it -> context id */
    /* Plain locations by (rank, thread) while they are collected. */
    struct hx_loc {
        uint32_t rank, thread;
        pk_plane plane;
        const unsigned char *trace; /* LE samples (owned), or NULL */
        uint64_t n_samples;
        const char *source;  /* file name, for messages */
        const pk_ident *ids; /* 4.0: the profile's identifier tuple */
        uint32_t n_ids;
    } * locs;
    size_t n_locs, cap_locs;
    /* Entry points the reader adds above the top-level nodes: ids
     * max_id + 1 + slot; tops[] the top-level node ids (id << 8 | slot),
     * sorted; plain_incl[raw] whether plain column raw is inclusive. */
    uint64_t max_id;
    unsigned n_entries;
    uint64_t *tops;
    uint32_t n_tops;
    uint8_t *plain_incl;
    int trace_unordered;
    uint64_t trace_unknown;
    pk_idset unlisted; /* node ids with values but no node in the tree */
    /* 4.0 (draft "Prof2"): profile.db / cct.db, checked by hx_draft_scan */
    struct hx_draft {
        const hx_file *profile_db, *cct_db;
        uint32_t n_prof, n_ctx;
        uint64_t pi_off, idt_lo, idt_hi, ci_off, cct_unwritten;
    } draft;
} hx_reader;

/* ---- xml.c ---- */
pk_status hx_parse_xml(hx_reader *r, const hx_file *xml);

/* ---- build.c: the tables, the tree and the metrics into the model ---- */
pk_status hx_build_model(hx_reader *r);
/* metrics.c: metrics, scopes and columns; the summary location */
pk_status hx_build_metrics(hx_reader *r);
pk_status hx_build_summary(hx_reader *r);

/* Entry slot of top-level node `id`, or -1 (build.c). */
int hx_top_slot(const hx_reader *r, uint64_t id);

/* ---- dense.c: metric-db / .mdb values, traces, locations ---- */
pk_status hx_read_metric_db(hx_reader *r, const hx_file *f);
pk_status hx_read_mdb(hx_reader *r, const hx_file *f);
pk_status hx_read_hpctrace(hx_reader *r, const hx_file *f);
pk_status hx_read_mt(hx_reader *r, const hx_file *f);
pk_status hx_finish_locations(hx_reader *r);

/* ---- sparse.c, trace4.c: the draft 4.0 database's binary files ---- */
/* Check profile.db (required) and cct.db (optional), number the nodes
 * written with a negative id; before hx_build_model. */
pk_status hx_draft_scan(hx_reader *r, const hx_file *profile_db, const hx_file *cct_db);
/* Profile values into the summary and one location per profile; cct.db
 * compared with them; after hx_build_model. */
pk_status hx_draft_values(hx_reader *r);
pk_status hx_read_trace_db(hx_reader *r, const hx_file *f);

/* Fail with "<file>: <structure> at byte <off>: <message>". */
pk_status hx_fail(const hx_file *f, const char *structure, uint64_t off, const char *fmt, ...)
    PK_PRINTF(4, 5);

/* ---- read.c: entry points ---- */
pk_status hx_open_dir(const char *path, const pk_open_options *opts, pk_profile **out);
pk_status hx_open_memory(size_t n, const char *const *names, const void *const *data,
                         const uint64_t *sizes, const pk_open_options *opts, pk_profile **out);
/* 2 for a legacy 2.x experiment.xml directory, 0 if not one. */
int hx_detect_dir(const char *path);

#endif

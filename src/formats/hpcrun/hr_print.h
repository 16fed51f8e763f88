/*
 * formats/hpcrun/hr_print.h — pieces of hpcproftt's text shared by the
 * 04.00 printer (print.c) and the 02.00/03.00 one (print_dense.c).
 */
#ifndef PK_FORMATS_HPCRUN_HR_PRINT_H
#define PK_FORMATS_HPCRUN_HR_PRINT_H

#include <stdio.h>

#include "formats/hpcrun/hpcrun.h"
#include "profkit/output.h"

void hr_put_str(FILE *out, hr_str s);
void hr_print_banner(FILE *out, const char *name);
void hr_print_header(FILE *out, const hr_file *f);
void hr_print_nvpairs(FILE *out, const hr_nvpairs *nv);
void hr_print_lm_only(FILE *out, const hr_epoch *e);
void hr_print_loadmap(FILE *out, const hr_epoch *e);
void hr_print_metric(FILE *out, const hr_metric *m, int with_id, uint32_t id);
void hr_print_metric_table(FILE *out, const hr_epoch *e, int with_id);
void hr_print_node_start(FILE *out, const hr_cct_node *x);
/* Everything after the banner for a dense (02.00/03.00) file. */
void hr_print_dense(FILE *out, const hr_file *f, const pk_hpcrun_text_options *o);

/* hpcproftt's text for one measurement file image (banner included
 * unless load_modules_only); parses it all before printing. */
pk_status hr_write_text(FILE *out, const char *name, const void *data, uint64_t size,
                        const pk_hpcrun_text_options *opts);

#endif

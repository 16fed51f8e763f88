/*
 * formats/hpctoolkit/hpctk_write.h — internals of the HPCToolkit v4 writer.
 *
 * pk_profile_write() (write.c) creates a temporary directory next to the
 * target, writes each file with the functions below, and renames the
 * directory into place. Each function works from the model only.
 */
#ifndef PK_FORMATS_HPCTOOLKIT_HPCTK_WRITE_H
#define PK_FORMATS_HPCTOOLKIT_HPCTK_WRITE_H

#include <stdio.h>

#include "model/model.h"
#include "profkit/write.h"

/* metrics/default.yaml: the metric taxonomy hpcviewer reads (field notes
 * §a, "METRICS.yaml taxonomy"), written to `out`. One root per metric that
 * has summary statistics; inputs name the summary statistics stored in the
 * profile (metric, scope, formula, combine) exactly as meta.db lists them. */
pk_status hk_write_metrics_yaml(const pk_profile *p, FILE *out);

#endif

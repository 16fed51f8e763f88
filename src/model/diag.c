/*
 * model/diag.c — diagnostics: what a reader noticed but could tolerate.
 *
 * A damaged file can repeat the same fault millions of times; keeping every
 * one would turn a bad file into an out-of-memory. So at most
 * PK_DIAG_PER_CODE diagnostics are kept per code, the rest are counted and
 * summarised in one closing diagnostic per code.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "util/vec.h"

/* Slot of `code` in the per-code counters, or -1 when the table is full. */
static int diag_code_slot(pk_profile *p, const char *code)
{
    for (int i = 0; i < PK_MAX_DIAG_CODES; i++) {
        if (!p->diag_codes[i]) {
            p->diag_codes[i] = code;
            return i;
        }
        if (strcmp(p->diag_codes[i], code) == 0) return i;
    }
    return -1;
}

static pk_status diag_push(pk_profile *p, const pk_diagnostic *d)
{
    if (pk_vec_reserve((void **)&p->diags, &p->cap_diags, p->n_diags + 1, sizeof *p->diags))
        return pk_fail_nomem("recording a diagnostic");
    p->diags[p->n_diags++].d = *d;
    return PK_OK;
}

pk_status pk_model_diag(pk_profile *p, pk_severity sev, const char *code, const char *file,
                        const char *structure, int has_offset, uint64_t offset, const char *fmt,
                        ...)
{
    int slot = diag_code_slot(p, code);
    if (slot >= 0 && ++p->diag_code_counts[slot] > PK_DIAG_PER_CODE) return PK_OK;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pk_diagnostic d = {
        .severity = sev,
        .code = pk_intern_cstr(&p->strings, code),
        .file = pk_intern_cstr(&p->strings, file),
        .structure = pk_intern_cstr(&p->strings, structure),
        .offset = offset,
        .has_offset = has_offset,
        .message = pk_intern_cstr(&p->strings, msg),
    };
    if (!d.code || !d.message) return pk_fail_nomem("recording a diagnostic");
    return diag_push(p, &d);
}

int pk_diagnostic_is_reason(const pk_profile *p, const pk_diagnostic *d)
{
    if (!p || !d || p->complete) return 0;
    int flagged = 0;
    for (size_t i = 0; i < p->n_diags && !flagged; i++)
        flagged = p->diags[i].d.incomplete;
    /* a reader that flags no reason: its errors are what is missing */
    return flagged ? d->incomplete : d->severity == PK_SEV_ERROR;
}

void pk_model_mark_incomplete(pk_profile *p, const char *code)
{
    p->complete = 0;
    if (p->n_diags && strcmp(p->diags[p->n_diags - 1].d.code, code) == 0)
        p->diags[p->n_diags - 1].d.incomplete = 1;
}

/* Highest severity among the kept diagnostics with `code`. */
static pk_severity diag_code_severity(const pk_profile *p, const char *code)
{
    pk_severity sev = PK_SEV_NOTE;
    for (size_t i = 0; i < p->n_diags; i++)
        if (strcmp(p->diags[i].d.code, code) == 0 && p->diags[i].d.severity > sev)
            sev = p->diags[i].d.severity;
    return sev;
}

pk_status pk_model_finish_diagnostics(pk_profile *p)
{
    for (int i = 0; i < PK_MAX_DIAG_CODES && p->diag_codes[i]; i++) {
        size_t n = p->diag_code_counts[i];
        if (n <= PK_DIAG_PER_CODE) continue;
        char msg[160];
        snprintf(msg, sizeof msg, "... and %zu more '%s' diagnostics like the above",
                 n - PK_DIAG_PER_CODE, p->diag_codes[i]);
        pk_diagnostic d = {
            .severity = diag_code_severity(p, p->diag_codes[i]),
            .code = pk_intern_cstr(&p->strings, p->diag_codes[i]),
            .message = pk_intern_cstr(&p->strings, msg),
        };
        if (!d.code || !d.message) return pk_fail_nomem("recording a diagnostic");
        pk_status st = diag_push(p, &d);
        if (st) return st;
        p->diag_code_counts[i] = PK_DIAG_PER_CODE; /* summarised once */
    }
    return PK_OK;
}

size_t pk_diagnostic_count(const pk_profile *p)
{
    return p ? p->n_diags : 0;
}

pk_status pk_diagnostic_get(const pk_profile *p, size_t i, pk_diagnostic *out)
{
    if (!p || !out) return pk_fail(PK_ERR_INVALID_ARG, "pk_diagnostic_get: NULL argument");
    if (i >= p->n_diags)
        return pk_fail(PK_ERR_NOT_FOUND, "diagnostic index %zu out of range (have %zu)", i,
                       p->n_diags);
    *out = p->diags[i].d;
    return PK_OK;
}

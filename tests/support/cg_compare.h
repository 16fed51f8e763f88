/*
 * tests/support/cg_compare.h — a call graph as canonical text (sorted
 * lines naming functions, files and objects by name), so two profiles'
 * call graphs compare with strcmp whatever their internal numbering.
 */
#ifndef TU_CG_COMPARE_H
#define TU_CG_COMPARE_H

#include "profkit/profkit.h"

/* malloc'ed text; NULL if the profile has no call graph. */
char *tu_cg_canonical(const pk_profile *p);

#endif

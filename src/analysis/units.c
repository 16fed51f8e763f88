/*
 * analysis/units.c — how two metrics' units relate, so that values of one
 * metric in two files compare in one unit. A writer that stores integers
 * scales values by a power of 1000 and says so in the metric's unit
 * (Callgrind: seconds become "us" or "ns"; a unitless count "1e-9", a
 * billionth); HPCToolkit puts the unit at the end of a name instead
 * ("CPUTIME (sec)"). Only such known scales count: units of different
 * dimensions, or of one dimension by another factor, do not compare.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/model.h"
#include "model/units.h"
#include "profkit/analysis.h"

pk_status pk_metric_unit_factor(const pk_metric *from, const pk_metric *to, double *factor)
{
    if (!from || !to || !factor) return pk_fail(PK_ERR_INVALID_ARG, "pk_metric_unit_factor: NULL");
    pk_unit a, b;
    if (!pk_unit_parse(from, &a) || !pk_unit_parse(to, &b))
        return pk_fail(PK_ERR_NOT_FOUND, "a unit profkit cannot read");
    double f;
    if (a.dim == PK_UNIT_TIME && b.dim == PK_UNIT_TIME)
        f = a.factor / b.factor * pow(10, a.exp - b.exp);
    else if (a.dim != PK_UNIT_TIME && b.dim != PK_UNIT_TIME && strcasecmp(a.name, b.name) == 0)
        f = a.factor / b.factor;
    else
        return pk_fail(PK_ERR_NOT_FOUND, "units '%s' and '%s' do not compare", a.name, b.name);
    double k = log10(f) / 3;
    if (fabs(k - nearbyint(k)) > 1e-9)
        return pk_fail(PK_ERR_NOT_FOUND, "units differ by %g, not a power of 1000", f);
    *factor = pow(1000, nearbyint(k));
    return PK_OK;
}

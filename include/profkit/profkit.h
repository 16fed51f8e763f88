/*
 * profkit/profkit.h — the whole public API of libprofkit.
 *
 * profkit reads call-path performance profiles (HPCToolkit databases today;
 * Cube4 and Callgrind as their readers land) into one in-memory model and
 * answers questions on it. Start with pk_profile_open() in profile.h.
 */
#ifndef PROFKIT_PROFKIT_H
#define PROFKIT_PROFKIT_H

#include "analysis.h"
#include "annotate.h"
#include "callgraph.h"
#include "disasm.h"
#include "dump.h"
#include "export.h"
#include "output.h"
#include "parallel.h"
#include "pattern.h"
#include "profile.h"
#include "query.h"
#include "status.h"
#include "trace.h"
#include "write.h"

#endif /* PROFKIT_PROFKIT_H */

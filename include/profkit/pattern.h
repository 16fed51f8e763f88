/*
 * profkit/pattern.h — the regular expressions a user gives profkit
 * (--focus, --hide, a function picked by a pattern, the view's search),
 * compiled and matched in one place, bounded in time and memory.
 *
 * The syntax is POSIX extended (ERE, as regcomp(REG_EXTENDED) reads it in
 * the C locale), with GNU's \w \W \s \S \b \B \< \> \` \' — see
 * docs/robustness.md, "Regular expressions". Bytes are matched as bytes.
 * What is refused, as bad syntax is (PK_ERR_INVALID_ARG), with a message
 * saying why:
 *   - backreferences (\1 ... \9): no engine matches them in linear time
 *     (glibc took over 60 s on one long C++ name);
 *   - a pattern longer than PK_PATTERN_MAX_LENGTH bytes;
 *   - a pattern whose compiled form, with every repetition written out
 *     as often as it may repeat, passes PK_PATTERN_MAX_COMPILED bytes:
 *     (a{1,32767}){1,32767} is 22 bytes that glibc expanded to 3.9 GB.
 * Matching runs PCRE2's DFA matcher (pcre2_dfa_match): no backtracking,
 * time linear in the name (times the pattern's size), a fixed workspace.
 * Each compiled pattern also has a time limit over all its matches
 * together (default PK_PATTERN_TIME_LIMIT seconds), so one question over
 * a hostile profile ends with an error instead of holding on.
 *
 * A pk_pattern is used by one thread at a time.
 */
#ifndef PROFKIT_PATTERN_H
#define PROFKIT_PATTERN_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PK_PATTERN_MAX_LENGTH   1024        /* bytes of the expression */
#define PK_PATTERN_MAX_COMPILED (16u << 10) /* bytes of its compiled form */
#define PK_PATTERN_TIME_LIMIT   10.0        /* seconds, over all matches */

typedef struct pk_pattern pk_pattern;

enum {
    PK_PATTERN_ICASE = 1u, /* ASCII letters match either case */
};

/* Compile `expr` (flags: PK_PATTERN_*). PK_ERR_INVALID_ARG for bad
 * syntax and for what is refused above; pk_error_last() says why, naming
 * the expression. */
PK_API pk_status pk_pattern_compile(const char *expr, unsigned flags, pk_pattern **out);

/* Does `s` (len bytes) hold a match? *matched 1 or 0. PK_ERR_LIMIT once
 * the pattern's time limit has passed (every later call fails too). */
PK_API pk_status pk_pattern_match(pk_pattern *re, const char *s, size_t len, int *matched);

/* The time limit, in seconds, for all matches of re from now on (<= 0:
 * none). */
PK_API void pk_pattern_set_time_limit(pk_pattern *re, double seconds);

PK_API void pk_pattern_free(pk_pattern *re);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_PATTERN_H */

/*
 * util/sanitized.h — PK_SANITIZED, defined when the build runs under a
 * sanitizer (GCC's and clang's spellings both).
 *
 * Code that steps around malloc (its own mappings, a re-executed process
 * with other malloc tunables) takes the plain path then, so that the
 * sanitizer still watches every byte.
 */
#ifndef PK_UTIL_SANITIZED_H
#define PK_UTIL_SANITIZED_H

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define PK_SANITIZED 1
#endif
#endif

#endif

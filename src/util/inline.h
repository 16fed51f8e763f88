/*
 * util/inline.h — PK_ALWAYS_INLINE, for a function written once and
 * compiled into several copies by calling it with constant arguments (a
 * hot loop's variants: with and without end tests, mixing or not), where
 * the compiler's own inlining heuristics would leave one general copy.
 */
#ifndef PK_UTIL_INLINE_H
#define PK_UTIL_INLINE_H

#if defined(__GNUC__)
#define PK_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define PK_ALWAYS_INLINE static inline
#endif

#endif

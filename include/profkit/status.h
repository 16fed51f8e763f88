/*
 * profkit/status.h — status codes and the per-thread last-error message.
 *
 * Every fallible profkit function returns a pk_status. PK_OK (0) means
 * success; any other value means failure, and pk_error_last() then returns
 * a human-readable message naming the file, the structure and the byte
 * offset where the problem was found (when those are known).
 *
 * The message lives in thread-local storage: it is only valid until the
 * next profkit call on the same thread, and calls on other threads never
 * disturb it.
 */
#ifndef PROFKIT_STATUS_H
#define PROFKIT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions libprofkit exports (everything else is hidden). */
#if defined(__GNUC__)
#define PK_API __attribute__((visibility("default")))
#else
#define PK_API
#endif

/* Result of every fallible profkit function. Values are stable ABI. */
typedef enum pk_status {
    PK_OK = 0,
    PK_ERR_INVALID_ARG = 1,    /* the caller passed a bad argument */
    PK_ERR_IO = 2,             /* a file could not be opened, read or mapped */
    PK_ERR_FORMAT = 3,         /* the data is damaged or violates its format */
    PK_ERR_UNSUPPORTED = 4,    /* recognised, but a version or feature we do not read */
    PK_ERR_NOMEM = 5,          /* out of memory */
    PK_ERR_NOT_FOUND = 6,      /* index out of range or lookup without a match */
    PK_ERR_UNKNOWN_FORMAT = 7, /* not a profile in any format profkit knows */
    /* the input claims more than its memory budget allows (a compressed
     * stream that inflates too far, a dense table far larger than the
     * file): pk_open_options.max_memory raises the budget */
    PK_ERR_LIMIT = 8,
} pk_status;

/* Message for the last failure on this thread ("" if none yet). Never NULL. */
PK_API const char *pk_error_last(void);

/* Short constant name of a status code, e.g. "format error". Never NULL. */
PK_API const char *pk_status_str(pk_status status);

/* Library version as "MAJOR.MINOR.PATCH". */
PK_API const char *pk_version(void);

/* 1 if profkit asks the kernel for transparent huge pages for its big
 * arrays in this process, 0 if it leaves them on 4 KiB pages. The
 * environment variable PROFKIT_HUGEPAGES=0 or 1 decides; otherwise 1,
 * except on a virtual machine whose host takes back free memory (a
 * virtio balloon with free page reporting), where a huge page's first
 * touch faults the host for every 4 KiB of it. Decided once per process,
 * on the first call. */
PK_API int pk_huge_pages_wanted(void);

#ifdef __cplusplus
}
#endif

#endif /* PROFKIT_STATUS_H */

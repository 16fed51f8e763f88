/*
 * formats/hpcrun/trace.c — .hpctrace files (header, then fixed-size
 * records to the end of the file), telling measurement files apart by
 * their magic, and the names hpcproftt gives placeholder CCT nodes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "formats/hpcrun/hr_read.h"
#include "util/error.h"
#include "util/infile.h"

pk_status hr_trace_parse(const char *name, const void *data, uint64_t size, hr_trace *out)
{
    memset(out, 0, sizeof *out);
    out->name = name;
    out->data = data;
    out->size = size;
    const uint8_t *d = data;
    if (size < HR_MAGIC_LEN + 6)
        return pk_fail(PK_ERR_FORMAT,
                       "%s: trace header at byte 0 needs %d bytes, but the file has %" PRIu64, name,
                       HR_MAGIC_LEN + 6, size);
    if (memcmp(d, HR_TRACE_MAGIC, HR_MAGIC_LEN) != 0)
        return pk_fail(PK_ERR_FORMAT, "%s: trace header at byte 0: no %s magic", name,
                       HR_TRACE_MAGIC);
    const uint8_t *v = d + HR_MAGIC_LEN;
    if (!(v[0] >= '0' && v[0] <= '9' && v[1] >= '0' && v[1] <= '9' && v[2] == '.' && v[3] >= '0' &&
          v[3] <= '9' && v[4] >= '0' && v[4] <= '9'))
        return pk_fail(PK_ERR_FORMAT, "%s: trace header at byte %d: bad version '%.5s'", name,
                       HR_MAGIC_LEN, (const char *)v);
    memcpy(out->version, v, 5);
    out->endian = (char)v[5];
    /* hpcrun-fmt.c reads a flags word when atof(version) > 1.0. */
    int major = (v[0] - '0') * 10 + (v[1] - '0'), minor = (v[3] - '0') * 10 + (v[4] - '0');
    out->has_flags = major > 1 || (major == 1 && minor > 0);
    out->header_size = HR_MAGIC_LEN + 6 + (out->has_flags ? 8 : 0);
    if (size < out->header_size)
        return pk_fail(PK_ERR_FORMAT,
                       "%s: trace header flags at byte %d need 8 bytes, but the file has %" PRIu64,
                       name, HR_MAGIC_LEN + 6, size);
    out->flags = out->has_flags ? pk_be64(d + HR_MAGIC_LEN + 6) : 0;
    out->record_size = (out->flags & HR_TRACE_DATA_CENTRIC) ? 16 : 12;
    uint64_t body = size - out->header_size;
    out->n_records = body / out->record_size;
    out->records = d + out->header_size;
    if (body % out->record_size)
        return pk_fail(PK_ERR_FORMAT,
                       "%s: trace record %" PRIu64 " at byte %" PRIu64 " needs %" PRIu32
                       " bytes, but the file ends at byte %" PRIu64,
                       name, out->n_records, out->header_size + out->n_records * out->record_size,
                       out->record_size, size);
    return PK_OK;
}

int hr_detect(const void *data, uint64_t size)
{
    if (size < HR_MAGIC_LEN) return HR_KIND_NONE;
    if (memcmp(data, HR_PROFILE_MAGIC, HR_MAGIC_LEN) == 0) return HR_KIND_PROFILE;
    if (memcmp(data, HR_TRACE_MAGIC, HR_MAGIC_LEN) == 0) return HR_KIND_TRACE;
    return HR_KIND_NONE;
}

int hr_detect_path(const char *path)
{
    unsigned char buf[HR_MAGIC_LEN];
    struct stat st;
    int fd;
    if (pk_input_open(path, &fd, &st)) { /* only regular files: a FIFO would block */
        pk_error_clear();
        return HR_KIND_NONE;
    }
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    return n > 0 ? hr_detect(buf, (uint64_t)n) : HR_KIND_NONE;
}

#define PH(a, b, c, d, e, f, g, h)                                                                 \
    ((uint64_t)(a) << 56 | (uint64_t)(b) << 48 | (uint64_t)(c) << 40 | (uint64_t)(d) << 32 |       \
     (uint64_t)(e) << 24 | (uint64_t)(f) << 16 | (uint64_t)(g) << 8 | (uint64_t)(h))

/* HPCToolkit's placeholders.c: fences and OpenMP/GPU operations have a
 * name; ^Primary, ^Partial, NoActvty, *Unnorm and "OMT None" have none. */
static const struct {
    uint64_t ip;
    const char *name;
} placeholders[] = {
    {PH('|', ' ', 'M', 'a', 'i', 'n', ' ', ' '), "<program root>"},
    {PH('|', ' ', 'T', 'h', 'r', 'e', 'a', 'd'), "<thread root>"},
    {PH('O', 'M', 'P', ' ', 'I', 'd', 'l', 'e'), "<omp idle>"},
    {PH('O', 'M', 'P', 'O', 'v', 'r', 'H', 'd'), "<omp overhead>"},
    {PH('O', 'M', 'P', 'B', 'a', 'r', 'r', 'W'), "<omp barrier wait>"},
    {PH('O', 'M', 'P', 'T', 'a', 's', 'k', 'W'), "<omp task wait>"},
    {PH('O', 'M', 'P', 'M', 't', 'e', 'x', 'W'), "<omp mutex wait>"},
    {PH('O', 'M', 'P', ' ', 'W', 'o', 'r', 'k'), "<omp work>"},
    {PH('O', 'M', 'P', 'E', 'T', 'a', 's', 'k'), "<omp expl task>"},
    {PH('O', 'M', 'P', 'I', 'T', 'a', 's', 'k'), "<omp impl task>"},
    {PH('O', 'M', 'P', 'U', 'r', 'e', 's', 'v'), "<omp region unresolved>"},
    {PH('O', 'M', 'T', 'A', 'l', 'l', 'o', 'c'), "<omp tgt alloc>"},
    {PH('O', 'M', 'T', 'D', 'e', 'l', 't', 'e'), "<omp tgt delete>"},
    {PH('O', 'M', 'T', 'C', 'p', 'I', 'n', ' '), "<omp tgt copyin>"},
    {PH('O', 'M', 'T', 'C', 'p', 'O', 'u', 't'), "<omp tgt copyout>"},
    {PH('O', 'M', 'T', 'K', 'e', 'r', 'n', 'l'), "<omp tgt kernel>"},
    {PH('G', 'P', 'U', 'C', 'p', '?', '2', '?'), "<gpu copy>"},
    {PH('G', 'P', 'U', 'C', 'p', 'H', '2', 'D'), "<gpu copyin>"},
    {PH('G', 'P', 'U', 'C', 'p', 'D', '2', 'H'), "<gpu copyout>"},
    {PH('G', 'P', 'U', 'A', 'l', 'l', 'o', 'c'), "<gpu alloc>"},
    {PH('G', 'P', 'U', 'D', 'e', 'l', 't', 'e'), "<gpu delete>"},
    {PH('G', 'P', 'U', 'K', 'e', 'r', 'n', 'l'), "<gpu kernel>"},
    {PH('G', 'P', 'U', 'M', 'e', 'm', 's', 't'), "<gpu memset>"},
    {PH('G', 'P', 'U', ' ', 'S', 'y', 'n', 'c'), "<gpu sync>"},
    {PH('G', 'P', 'U', 'T', 'r', 'a', 'c', 'e'), "<gpu kernel>"},
};

const char *hr_placeholder_name(uint64_t lm_ip)
{
    for (size_t i = 0; i < sizeof placeholders / sizeof placeholders[0]; i++)
        if (placeholders[i].ip == lm_ip) return placeholders[i].name;
    return NULL;
}

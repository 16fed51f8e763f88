/*
 * formats/hpcrun/symbols.c — resolving load-module offsets to function,
 * inlined calls and source line with elfutils (libdwfl/libdw).
 *
 * hpcprof gets the same facts from hpcstruct files; without them, the
 * binaries themselves are the only source. Each module is reported to
 * its own offline Dwfl session once, so separate debug files found
 * through .gnu_debuglink or build-id (/usr/lib/debug) are used as well.
 * Only regular files are opened: a loadmap may name anything. libdw is
 * loaded on the first resolver (util/dynlib.h): most runs never need it.
 */
#include "formats/hpcrun/symbols.h"

#ifdef PK_HAVE_LIBDW

#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/dynlib.h"
#include "util/error.h"
#include "util/infile.h"

/* One address range of a compilation unit, in the module's addresses. */
typedef struct hs_range {
    Dwarf_Addr lo, hi; /* [lo, hi) */
    Dwarf_Die cu;
} hs_range;

typedef struct hs_module {
    Dwfl *dwfl; /* NULL once tried and failed */
    Dwfl_Module *mod;
    GElf_Addr bias;
    int tried, ranged; /* ranged: units' ranges collected (unit_of()) */
    hs_range *ranges;  /* sorted by lo */
    size_t n_ranges;
    Dwarf_Addr dbias; /* of the units in `ranges` */
} hs_module;

struct hs_resolver {
    hs_module *mods; /* by module number */
    size_t n_mods;
    Dwfl_Callbacks callbacks; /* libdw's own: its sessions keep a pointer */
};

#ifndef PK_LIBDW_SONAME
#define PK_LIBDW_SONAME "libdw.so.1"
#endif

/* The functions of libdw this file calls, bound once by hs_new(). */
/* clang-format off */
#define DW_FUNCTIONS(X) \
    X(dwfl_begin) X(dwfl_end) X(dwfl_report_offline) \
    X(dwfl_report_end) X(dwfl_module_getelf) X(dwfl_module_addrinfo) \
    X(dwfl_module_addrdie) X(dwfl_module_nextcu) X(dwarf_ranges) \
    X(dwarf_getsrc_die) X(dwarf_lineno) X(dwarf_linesrc) \
    X(dwfl_standard_find_debuginfo) X(dwfl_offline_section_address) X(dwarf_attr_integrate) \
    X(dwarf_formstring) X(dwarf_attr) X(dwarf_formudata) \
    X(dwarf_getsrcfiles) X(dwarf_filesrc) X(dwarf_getscopes) \
    X(dwarf_tag) X(dwarf_cu_die) X(dwarf_decl_line)
/* clang-format on */

static struct {
    DW_FUNCTIONS(PK_DYNLIB_FIELD)
} dw;
#define DW_ENTRY(fn) PK_DYNLIB_ENTRY(dw, fn)
static const pk_dynlib_sym dw_syms[] = {DW_FUNCTIONS(DW_ENTRY)};
static pk_dynlib libdw = PK_DYNLIB_INIT(PK_LIBDW_SONAME, "the DWARF reader", dw_syms);

static char *debuginfo_path;

hs_resolver *hs_new(void)
{
    /* without libdw, frames stay module+offset, as in a build without it */
    if (!pk_dynlib_load(&libdw, NULL, 0)) return NULL;
    hs_resolver *r = calloc(1, sizeof(hs_resolver));
    if (r)
        r->callbacks = (Dwfl_Callbacks){.find_debuginfo = dw.dwfl_standard_find_debuginfo,
                                        .section_address = dw.dwfl_offline_section_address,
                                        .debuginfo_path = &debuginfo_path};
    return r;
}

void hs_free(hs_resolver *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n_mods; i++)
        if (r->mods[i].dwfl) dw.dwfl_end(r->mods[i].dwfl), free(r->mods[i].ranges);
    free(r->mods);
    free(r);
}

static void open_module(const hs_resolver *r, hs_module *m, const char *path)
{
    struct stat st;
    int fd;
    m->tried = 1;
    /* Opened here, type checked (infile.h), and handed over: libdwfl
     * would open a FIFO the loadmap names and wait forever. */
    if (!path || pk_input_open(path, &fd, &st) != PK_OK) {
        pk_error_clear();
        return;
    }
    Dwfl *d = dw.dwfl_begin(&r->callbacks);
    if (!d) {
        close(fd);
        return;
    }
    Dwfl_Module *mod = dw.dwfl_report_offline(d, "", path, fd); /* owns fd from here */
    if (!mod || dw.dwfl_report_end(d, NULL, NULL) != 0 || !dw.dwfl_module_getelf(mod, &m->bias)) {
        dw.dwfl_end(d);
        return;
    }
    m->dwfl = d, m->mod = mod;
}

static hs_module *module_of(hs_resolver *r, uint32_t module, const char *path)
{
    if (module >= r->n_mods) {
        size_t n = r->n_mods ? r->n_mods : 16;
        while (n <= module)
            n *= 2;
        hs_module *m = realloc(r->mods, n * sizeof *m);
        if (!m) return NULL;
        memset(m + r->n_mods, 0, (n - r->n_mods) * sizeof *m);
        r->mods = m, r->n_mods = n;
    }
    hs_module *m = &r->mods[module];
    if (!m->tried) open_module(r, m, path);
    return m->dwfl ? m : NULL;
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *s = NULL;
    if (dw.dwarf_attr_integrate(die, DW_AT_linkage_name, &a)) s = dw.dwarf_formstring(&a);
    if (!s && dw.dwarf_attr_integrate(die, DW_AT_name, &a)) s = dw.dwarf_formstring(&a);
    return s;
}

static uint32_t udata_attr(Dwarf_Die *die, unsigned name)
{
    Dwarf_Attribute a;
    Dwarf_Word w = 0;
    if (!dw.dwarf_attr(die, name, &a) || dw.dwarf_formudata(&a, &w) != 0 || w > UINT32_MAX)
        return 0;
    return (uint32_t)w;
}

/* The source file a file-index attribute (DW_AT_decl_file, DW_AT_call_file)
 * names, in the line table of the unit the attribute comes from. In DWARF 5
 * index 0 is the unit's own file, and clang names every function defined
 * there by it; before DWARF 5 it means "no file". libdw's dwarf_decl_file()
 * (0.188) refuses 0 in every version, so this is looked up here. */
static const char *unit_file(Dwarf_Attribute *a)
{
    Dwarf_Word idx;
    Dwarf_Die cu;
    Dwarf_Half version = 0;
    Dwarf_Files *files;
    size_t n;
    if (dw.dwarf_formudata(a, &idx) != 0 || !a->cu ||
        !dw.dwarf_cu_die(a->cu, &cu, &version, NULL, NULL, NULL, NULL, NULL))
        return NULL;
    if ((idx == 0 && version < 5) || dw.dwarf_getsrcfiles(&cu, &files, &n) != 0 || idx >= n)
        return NULL;
    return dw.dwarf_filesrc(files, idx, NULL, NULL);
}

static const char *attr_file(Dwarf_Die *die, unsigned name)
{
    Dwarf_Attribute a;
    return dw.dwarf_attr_integrate(die, name, &a) ? unit_file(&a) : NULL;
}

static int cmp_range(const void *a, const void *b)
{
    const hs_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every unit's address ranges, sorted, once per module. Out of memory
 * leaves the table empty: lines are then unknown, as without DWARF. */
static void collect_ranges(hs_module *m)
{
    size_t cap = 0;
    Dwarf_Die *cu = NULL;
    m->ranged = 1;
    while ((cu = dw.dwfl_module_nextcu(m->mod, cu, &m->dbias))) {
        Dwarf_Addr base, lo, hi;
        for (ptrdiff_t at = 0; (at = dw.dwarf_ranges(cu, at, &base, &lo, &hi)) > 0;) {
            if (lo >= hi) continue;
            if (m->n_ranges == cap) {
                hs_range *g = realloc(m->ranges, (cap = cap ? 2 * cap : 64) * sizeof *g);
                if (!g) {
                    free(m->ranges), m->ranges = NULL, m->n_ranges = 0;
                    return;
                }
                m->ranges = g;
            }
            m->ranges[m->n_ranges++] = (hs_range){lo + m->dbias, hi + m->dbias, *cu};
        }
    }
    if (m->n_ranges) qsort(m->ranges, m->n_ranges, sizeof *m->ranges, cmp_range);
}

/* The compilation unit holding addr. libdw (0.188) finds units only
 * through .debug_aranges, which clang does not write by default; without
 * it, the units' own ranges are searched. */
static Dwarf_Die *unit_of(hs_module *m, GElf_Addr addr, Dwarf_Addr *dbias)
{
    Dwarf_Die *cu = dw.dwfl_module_addrdie(m->mod, addr, dbias);
    if (cu) return cu;
    if (!m->ranged) collect_ranges(m);
    size_t lo = 0, hi = m->n_ranges; /* the last range starting at or below addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->ranges[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* units' ranges do not overlap in a sane file; look a few back if they do */
    for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++)
        if (addr < m->ranges[i - 1].hi) return *dbias = m->dbias, &m->ranges[i - 1].cu;
    return NULL;
}

/* Definition and inlining chain from the DWARF scopes around addr. */
static void dwarf_scopes(Dwarf_Die *cu, Dwarf_Addr addr, hs_frame *out)
{
    Dwarf_Die *scopes = NULL;
    int n = cu ? dw.dwarf_getscopes(cu, addr, &scopes) : -1;
    int sub = -1;
    for (int i = 0; i < n && sub < 0; i++)
        if (dw.dwarf_tag(&scopes[i]) == DW_TAG_subprogram) sub = i;
    if (sub >= 0) {
        int line = 0;
        if (!out->function) out->function = die_name(&scopes[sub]);
        out->decl_file = attr_file(&scopes[sub], DW_AT_decl_file);
        if (dw.dwarf_decl_line(&scopes[sub], &line) == 0 && line > 0)
            out->decl_line = (uint32_t)line;
        for (int i = sub - 1; i >= 0 && out->n_inline < HS_MAX_INLINE; i--) {
            if (dw.dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
            hs_inline *in = &out->inl[out->n_inline++];
            in->function = die_name(&scopes[i]);
            in->call_file = attr_file(&scopes[i], DW_AT_call_file);
            in->call_line = udata_attr(&scopes[i], DW_AT_call_line);
        }
    }
    free(scopes);
}

int hs_lookup(hs_resolver *r, uint32_t module, const char *path, uint64_t offset, hs_frame *out)
{
    memset(out, 0, sizeof *out);
    hs_module *m = r ? module_of(r, module, path) : NULL;
    if (!m) return 0;
    GElf_Addr addr = offset + m->bias;
    GElf_Off off = 0;
    GElf_Sym sym;
    out->function = dw.dwfl_module_addrinfo(m->mod, addr, &off, &sym, NULL, NULL, NULL);
    out->entry = out->function ? offset - off : offset;
    Dwarf_Addr dbias = 0;
    Dwarf_Die *cu = unit_of(m, addr, &dbias);
    dwarf_scopes(cu, addr - dbias, out);
    Dwarf_Line *ln = cu ? dw.dwarf_getsrc_die(cu, addr - dbias) : NULL;
    int line = 0;
    if (ln && dw.dwarf_lineno(ln, &line) == 0) out->file = dw.dwarf_linesrc(ln, NULL, NULL);
    out->line = out->file && line > 0 ? (uint32_t)line : 0;
    if (!out->line) out->file = NULL;
    return out->function != NULL;
}

#else /* !PK_HAVE_LIBDW: this build cannot read binaries */

#include <stddef.h>

hs_resolver *hs_new(void)
{
    return NULL;
}

void hs_free(hs_resolver *r)
{
    (void)r;
}

int hs_lookup(hs_resolver *r, uint32_t module, const char *path, uint64_t offset, hs_frame *out)
{
    (void)r, (void)module, (void)path, (void)offset, (void)out;
    return 0;
}

#endif

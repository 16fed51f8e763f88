/*
 * analysis/disasm.c — a function's machine code from its binary, with
 * the profile's per-address costs on it (profkit/disasm.h). libelf finds
 * the symbol and the bytes; Capstone decodes them. Every size and offset
 * from the file is checked against the section that holds it before use;
 * a cost the code has no instruction for means the binary is not the one
 * profiled, and the error says so rather than guessing. Both libraries
 * are loaded on the first disassembly (util/dynlib.h).
 */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profkit/disasm.h"
#include "profkit/output.h"
#include "util/error.h"

#if defined(PK_HAVE_CAPSTONE) && defined(PK_HAVE_LIBDW)
#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "util/dynlib.h"

#ifndef PK_LIBELF_SONAME
#define PK_LIBELF_SONAME "libelf.so.1"
#endif
#ifndef PK_CAPSTONE_SONAME
#define PK_CAPSTONE_SONAME "libcapstone.so.4"
#endif

/* The functions of libelf and Capstone this file calls, bound once by
 * pk_disassemble_function(). */
/* clang-format off */
#define ELF_FUNCTIONS(X) \
    X(elf_version) X(elf_begin) X(elf_end) X(elf_kind) \
    X(elf_errmsg) X(elf_nextscn) X(elf_getdata) X(elf_strptr) \
    X(gelf_getshdr) X(gelf_getsym) X(gelf_getnote) X(gelf_getehdr)
#define CS_FUNCTIONS(X) \
    X(cs_open) X(cs_option) X(cs_disasm) X(cs_free) X(cs_close)
/* clang-format on */

static struct {
    ELF_FUNCTIONS(PK_DYNLIB_FIELD)
} libelf;
static struct {
    CS_FUNCTIONS(PK_DYNLIB_FIELD)
} capstone;
#define EL_ENTRY(fn) PK_DYNLIB_ENTRY(libelf, fn)
#define CS_ENTRY(fn) PK_DYNLIB_ENTRY(capstone, fn)
static const pk_dynlib_sym el_syms[] = {ELF_FUNCTIONS(EL_ENTRY)};
static const pk_dynlib_sym cs_syms[] = {CS_FUNCTIONS(CS_ENTRY)};
static pk_dynlib libelf_lib = PK_DYNLIB_INIT(PK_LIBELF_SONAME, "the ELF reader", el_syms);
static pk_dynlib capstone_lib = PK_DYNLIB_INIT(PK_CAPSTONE_SONAME, "the disassembler", cs_syms);

typedef struct symbol {
    uint64_t value, size;
    int found;
} symbol;

/* Does the symbol's name (plain or demangled, "@VERSION" cut) equal `want`? */
static int same_name(const char *sym, const char *want)
{
    char plain[1024];
    size_t len = strcspn(want, "@");
    if (strncmp(sym, want, len) == 0 && (sym[len] == '\0' || sym[len] == '@')) return 1;
    if (strncmp(sym, "_Z", 2) != 0) return 0;
    pk_name_demangle(sym, plain, sizeof plain);
    return strncmp(plain, want, len) == 0 && plain[len] == '\0';
}

/* The function symbol `name` in the symbol tables (.symtab, else .dynsym). */
static symbol find_symbol(Elf *e, const char *name)
{
    symbol best = {0};
    for (int pass = 0; pass < 2 && !best.found; pass++) {
        Elf_Scn *scn = NULL;
        while ((scn = libelf.elf_nextscn(e, scn)) != NULL && !best.found) {
            GElf_Shdr sh;
            if (!libelf.gelf_getshdr(scn, &sh) || sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) ||
                sh.sh_entsize == 0)
                continue;
            Elf_Data *d = libelf.elf_getdata(scn, NULL);
            size_t n = d ? d->d_size / sh.sh_entsize : 0;
            for (size_t i = 0; i < n; i++) {
                GElf_Sym s;
                const char *sn;
                if (!libelf.gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
                    s.st_size == 0 || s.st_shndx == SHN_UNDEF ||
                    !(sn = libelf.elf_strptr(e, sh.sh_link, s.st_name)) || !same_name(sn, name))
                    continue;
                best = (symbol){s.st_value, s.st_size, 1};
                break;
            }
        }
    }
    return best;
}

/* The bytes at [addr, addr + size) from the executable section holding
 * them, or NULL (then *why says what failed). */
static const unsigned char *code_at(Elf *e, uint64_t addr, uint64_t size, const char **why)
{
    Elf_Scn *scn = NULL;
    *why = "no executable section holds it";
    while ((scn = libelf.elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!libelf.gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || addr < sh.sh_addr ||
            addr - sh.sh_addr >= sh.sh_size)
            continue;
        if (sh.sh_type == SHT_NOBITS) return *why = "its section has no bytes in the file", NULL;
        Elf_Data *d = libelf.elf_getdata(scn, NULL);
        uint64_t off = addr - sh.sh_addr;
        if (!d || !d->d_buf || off > d->d_size || size > d->d_size - off)
            return *why = "it runs past the end of its section", NULL;
        return (const unsigned char *)d->d_buf + off;
    }
    return NULL;
}

/* The GNU build-id note as hex, "" when none. */
static void build_id(Elf *e, char *out, size_t size)
{
    Elf_Scn *scn = NULL;
    out[0] = 0;
    while ((scn = libelf.elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!libelf.gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
        Elf_Data *d = libelf.elf_getdata(scn, NULL);
        GElf_Nhdr nh;
        size_t off = 0, name_off, desc_off, next;
        while (d && (next = libelf.gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0) {
                const unsigned char *id = (const unsigned char *)d->d_buf + desc_off;
                for (size_t i = 0; i < nh.n_descsz && 2 * i + 2 < size; i++)
                    snprintf(out + 2 * i, 3, "%02x", id[i]);
                return;
            }
            off = next;
        }
    }
}

/* Capstone's architecture for the ELF machine, 0 when not one we decode. */
static int arch_of(Elf *e, cs_arch *arch, cs_mode *mode)
{
    GElf_Ehdr eh;
    if (!libelf.gelf_getehdr(e, &eh)) return 0;
    if (eh.e_machine == EM_X86_64) return *arch = CS_ARCH_X86, *mode = CS_MODE_64, 1;
    if (eh.e_machine == EM_386) return *arch = CS_ARCH_X86, *mode = CS_MODE_32, 1;
    if (eh.e_machine == EM_AARCH64) return *arch = CS_ARCH_ARM64, *mode = CS_MODE_ARM, 1;
    return 0;
}

/* The bias that puts every cost inside [start, start + size): 0, else
 * the lowest costed address at the entry. 0 and *ok = 0 when none does. */
static int64_t bias_of(const pk_instr_cost *c, size_t n, uint64_t start, uint64_t size, int *ok)
{
    int64_t tries[2] = {0, n ? (int64_t)(c[0].address - start) : 0};
    for (int t = 0; t < 2; t++) {
        *ok = 1;
        for (size_t i = 0; i < n && *ok; i++) {
            uint64_t a = c[i].address - (uint64_t)tries[t];
            *ok = a >= start && a - start < size;
        }
        if (*ok) return tries[t];
    }
    return 0;
}

/* Decode and place the costs; PK_ERR_FORMAT when a cost has no instruction. */
static pk_status decode(const char *binary, const char *name, csh cs, const unsigned char *code,
                        const pk_instr_cost *c, size_t n, pk_asm_listing *out)
{
    cs_insn *insn = NULL;
    size_t count = capstone.cs_disasm(cs, code, out->size, out->start, 0, &insn);
    out->insns = calloc(count ? count : 1, sizeof *out->insns);
    if (!out->insns)
        return capstone.cs_free(insn, count), pk_fail_nomem("disassembling a function");
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        pk_asm_insn *x = &out->insns[i];
        x->address = insn[i].address, x->size = insn[i].size;
        snprintf(x->text, sizeof x->text, "%s%s%s", insn[i].mnemonic, insn[i].op_str[0] ? " " : "",
                 insn[i].op_str);
        for (; k < n && c[k].address - (uint64_t)out->bias <= x->address; k++) {
            if (c[k].address - (uint64_t)out->bias != x->address) break;
            x->self += c[k].self, x->costed = 1;
        }
    }
    out->n = count;
    capstone.cs_free(insn, count);
    if (k < n)
        return pk_fail(PK_ERR_FORMAT,
                       "%s: the profile has a cost at 0x%llx, which is no instruction of %s in "
                       "it: not the binary that was profiled",
                       binary, (unsigned long long)(c[k].address - (uint64_t)out->bias), name);
    return PK_OK;
}

static pk_status disassemble(Elf *e, const char *binary, const char *name, const pk_instr_cost *c,
                             size_t n, pk_asm_listing *out)
{
    cs_arch arch;
    cs_mode mode;
    if (libelf.elf_kind(e) != ELF_K_ELF)
        return pk_fail(PK_ERR_FORMAT, "%s: not an ELF file", binary);
    if (!arch_of(e, &arch, &mode))
        return pk_fail(PK_ERR_UNSUPPORTED, "%s: an architecture profkit does not disassemble",
                       binary);
    symbol s = find_symbol(e, name);
    if (!s.found)
        return pk_fail(PK_ERR_NOT_FOUND, "%s: no function symbol %s (stripped?)", binary, name);
    const char *why;
    const unsigned char *code = code_at(e, s.value, s.size, &why);
    if (!code)
        return pk_fail(PK_ERR_FORMAT, "%s: %s at 0x%llx: %s", binary, name,
                       (unsigned long long)s.value, why);
    int ok;
    out->start = s.value, out->size = s.size;
    out->bias = bias_of(c, n, s.value, s.size, &ok);
    build_id(e, out->build_id, sizeof out->build_id);
    if (!ok)
        return pk_fail(PK_ERR_FORMAT,
                       "%s: the profile's addresses of %s (0x%llx-0x%llx) do not fit its code "
                       "(0x%llx, %llu bytes): not the binary that was profiled",
                       binary, name, (unsigned long long)c[0].address,
                       (unsigned long long)c[n - 1].address, (unsigned long long)s.value,
                       (unsigned long long)s.size);
    csh cs;
    if (capstone.cs_open(arch, mode, &cs) != CS_ERR_OK)
        return pk_fail(PK_ERR_UNSUPPORTED, "%s: the disassembler cannot open", binary);
    if (arch == CS_ARCH_X86) capstone.cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_INTEL);
    pk_status st = decode(binary, name, cs, code, c, n, out);
    capstone.cs_close(&cs);
    return st;
}

pk_status pk_disassemble_function(const char *binary, const char *name, const pk_instr_cost *costs,
                                  size_t n_costs, pk_asm_listing *out)
{
    if (!binary || !name || !out || (n_costs && !costs))
        return pk_fail(PK_ERR_INVALID_ARG, "pk_disassemble_function: NULL argument");
    memset(out, 0, sizeof *out);
    char why[256];
    if (!pk_dynlib_load(&libelf_lib, why, sizeof why) ||
        !pk_dynlib_load(&capstone_lib, why, sizeof why))
        return pk_fail(PK_ERR_UNSUPPORTED, "%s: %s", binary, why);
    if (libelf.elf_version(EV_CURRENT) == EV_NONE)
        return pk_fail(PK_ERR_UNSUPPORTED, "libelf is too old for this build");
    int fd = open(binary, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pk_fail(PK_ERR_IO,
                       "%s: cannot open the binary (%s): it is needed for the "
                       "instructions",
                       binary, strerror(errno));
    Elf *e = libelf.elf_begin(fd, ELF_C_READ_MMAP, NULL);
    pk_status st =
        e ? disassemble(e, binary, name, costs, n_costs, out)
          : pk_fail(PK_ERR_FORMAT, "%s: not an ELF file (%s)", binary, libelf.elf_errmsg(-1));
    if (e) libelf.elf_end(e);
    close(fd);
    if (st) pk_asm_listing_free(out);
    return st;
}

#else /* a build without Capstone or libelf cannot read machine code */

pk_status pk_disassemble_function(const char *binary, const char *name, const pk_instr_cost *costs,
                                  size_t n_costs, pk_asm_listing *out)
{
    (void)name, (void)costs, (void)n_costs;
    if (out) memset(out, 0, sizeof *out);
    return pk_fail(PK_ERR_UNSUPPORTED,
                   "%s: this build of profkit has no disassembler (libcapstone-dev, libdw-dev)",
                   binary ? binary : "?");
}

#endif

void pk_asm_listing_free(pk_asm_listing *listing)
{
    if (!listing) return;
    free(listing->insns);
    memset(listing, 0, sizeof *listing);
}

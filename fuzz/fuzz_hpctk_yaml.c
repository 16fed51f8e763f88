/*
 * fuzz/fuzz_hpctk_yaml.c — libFuzzer target for metrics/default.yaml: the
 * reader's parse (formats/hpctoolkit/yaml_read.c) and the writer's
 * carry-over (write_yaml_keep.c).
 *
 * One input is one YAML text, in a buffer of exactly its size (plus the
 * NUL the attribute API keeps). It is parsed and its inputs checked
 * against the fixture database; then it is given to that database as its
 * own taxonomy and the text the HPCToolkit writer would write is made:
 * carried over, merged with the fixture's metrics, or replaced. Whatever
 * the writer produces must parse again and name only statistics the
 * database holds, or the target aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures/v4_builder.h"
#include "formats/hpctoolkit/hk_yaml.h"
#include "formats/hpctoolkit/hpctk_write.h"
#include "support/testutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fixture database, opened from images built once (the profile reads
 * them in place, so they live as long as the process). */
static pk_profile *fixture(void)
{
    static fx_image img[4];
    static int built;
    if (!built && fx_build(fx_sample_db(), img) != 0) abort();
    built = 1;
    const char *names[4];
    const void *d[4];
    uint64_t s[4];
    size_t n = 0;
    for (int i = 0; i < 4; i++)
        if (img[i].data) names[n] = img[i].name, d[n] = img[i].data, s[n++] = img[i].size;
    pk_profile *p = NULL;
    if (pk_profile_open_memory(PK_FORMAT_HPCTOOLKIT_V4, n, names, d, s, NULL, &p) != PK_OK) abort();
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    pk_profile *p = fixture();
    hk_yaml y;
    if (hk_yaml_parse(text, size, &y) == PK_OK)
        for (size_t i = 0; i < y.n_inputs; i++)
            hk_yaml_input_known(p, &y.inputs[i]);
    hk_yaml_free(&y);
    if (!memchr(data, 0, size) &&
        pk_model_add_attr(p, PK_ENTITY_PROFILE, 0, HK_YAML_ATTR, text, size) == PK_OK) {
        pk_model_sort_attrs(p);
        char *out = NULL;
        size_t len = 0;
        if (hk_yaml_text(p, "fuzz.d", NULL, NULL, &out, &len) == PK_OK) {
            if (hk_yaml_parse(out, len, &y) != PK_OK) abort();
            for (size_t i = 0; i < y.n_inputs; i++)
                if (!hk_yaml_input_known(p, &y.inputs[i])) abort();
            hk_yaml_free(&y);
        }
        free(out);
    }
    pk_profile_free(p);
    free(text);
    return 0;
}

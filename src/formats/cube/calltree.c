/*
 * formats/cube/calltree.c — walking a call tree given as parent links, as
 * both the reader (cnodes of anchor.xml) and the writer (planned cnodes)
 * hold it: children lists, and CubeLib's wide-search enumeration, the
 * order in which INCLUSIVE metrics store their rows.
 */
#include "cube.h"

static uint32_t parent_of(const void *parent, size_t stride, uint32_t i)
{
    return *(const uint32_t *)((const char *)parent + (size_t)i * stride);
}

void cube_link_children(const void *parent, size_t stride, uint32_t n, uint32_t *first,
                        uint32_t *next, uint32_t *n_kids)
{
    for (uint32_t i = 0; i < n; i++) {
        first[i] = next[i] = CUBE_NONE;
        if (n_kids) n_kids[i] = 0;
    }
    for (uint32_t i = n; i-- > 0;) { /* backwards, so lists keep document order */
        uint32_t par = parent_of(parent, stride, i);
        if (par == CUBE_NONE) continue;
        next[i] = first[par], first[par] = i;
        if (n_kids) n_kids[par]++;
    }
}

/* Per root in order: the root, then all its children, then the same
 * recursively for each child (CubeLib's WideSearchEnumerator, several
 * roots concatenated). Iterative: expanding a node appends its children;
 * nodes are expanded depth-first in order, so `stack` needs n entries. */
void cube_wide_enumeration(const void *parent, size_t stride, uint32_t n, const uint32_t *first,
                           const uint32_t *next, uint32_t *stack, uint32_t *out)
{
    uint32_t pos = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (parent_of(parent, stride, root) != CUBE_NONE) continue;
        out[pos++] = root;
        size_t sp = 0;
        stack[sp++] = root;
        while (sp) {
            uint32_t v = stack[--sp];
            size_t base = sp;
            for (uint32_t c = first[v]; c != CUBE_NONE; c = next[c])
                out[pos++] = c, stack[sp++] = c;
            for (size_t i = base, j = sp; i + 1 < j; i++, j--) { /* first child on top */
                uint32_t t = stack[i];
                stack[i] = stack[j - 1], stack[j - 1] = t;
            }
        }
    }
}

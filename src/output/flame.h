/*
 * output/flame.h — what the flame graph writer (flame.c) shares with its
 * embedded script (flame_script.c).
 */
#ifndef PK_OUTPUT_FLAME_H
#define PK_OUTPUT_FLAME_H

/* The JavaScript that makes the SVG interactive (zoom, search). */
extern const char pk_flame_script[];

#endif /* PK_OUTPUT_FLAME_H */

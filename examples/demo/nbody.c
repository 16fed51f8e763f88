/*
 * examples/demo/nbody.c — the small program `make demo` profiles with
 * valgrind --tool=callgrind: a direct-sum n-body step with a recursive
 * tree-depth helper, so the profile has a hot loop, a call chain several
 * levels deep, a function called from two places and recursion.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct body {
    double x, y, z, vx, vy, vz, m;
} body;

static double distance(const body *a, const body *b)
{
    double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
    return sqrt(dx * dx + dy * dy + dz * dz + 1e-9);
}

static void accelerate(body *bs, int n, double dt)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j) continue;
            double d = distance(&bs[i], &bs[j]), f = bs[j].m / (d * d * d) * dt;
            bs[i].vx += f * (bs[j].x - bs[i].x);
            bs[i].vy += f * (bs[j].y - bs[i].y);
            bs[i].vz += f * (bs[j].z - bs[i].z);
        }
}

static void move(body *bs, int n, double dt)
{
    for (int i = 0; i < n; i++)
        bs[i].x += bs[i].vx * dt, bs[i].y += bs[i].vy * dt, bs[i].z += bs[i].vz * dt;
}

static double energy(const body *bs, int n)
{
    double e = 0;
    for (int i = 0; i < n; i++) {
        e += 0.5 * bs[i].m * (bs[i].vx * bs[i].vx + bs[i].vy * bs[i].vy + bs[i].vz * bs[i].vz);
        for (int j = i + 1; j < n; j++)
            e -= bs[i].m * bs[j].m / distance(&bs[i], &bs[j]);
    }
    return e;
}

/* Depth of a balanced split of n bodies: recursion for the profile. */
static int split_depth(int n)
{
    return n <= 1 ? 0 : 1 + split_depth(n / 2);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200, steps = argc > 2 ? atoi(argv[2]) : 10;
    body *bs = calloc((size_t)n, sizeof *bs);
    if (!bs) return 1;
    for (int i = 0; i < n; i++)
        bs[i] = (body){cos(i), sin(i), 0.01 * i, 0, 0, 0, 1.0 + (i % 3)};
    double e0 = energy(bs, n);
    for (int s = 0; s < steps; s++) {
        accelerate(bs, n, 0.001);
        move(bs, n, 0.001);
    }
    printf("bodies %d steps %d split depth %d energy %.6f -> %.6f\n", n, steps, split_depth(n), e0,
           energy(bs, n));
    free(bs);
    return 0;
}

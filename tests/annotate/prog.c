/* tests/annotate/prog.c — the program tests/annotate/run.sh compiles and runs
 * under callgrind, to compare profkit annotate with callgrind_annotate. */
#include <stdio.h>

static int leaf(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += i * i;
    return s;
}

static int mid(int n)
{
    int t = 0;
    for (int k = 0; k < n; k++)
        t += leaf(k);
    return t;
}

int main(void)
{
    int total = mid(200);
    total += leaf(1000);
    printf("%d\n", total);
    return 0;
}

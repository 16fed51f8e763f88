/* tests/fidelity/threads.c — three worker threads for valgrind's
 * --separate-threads=yes (tests/fidelity/run.sh): one file per thread. */
#include <pthread.h>
#include <stdio.h>

static long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void *worker(void *arg)
{
    return (void *)fib((int)(long)arg);
}

int main(void)
{
    pthread_t t[3];
    long sum = 0;
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, (void *)(14 + i));
    for (int i = 0; i < 3; i++) {
        void *r;
        pthread_join(t[i], &r);
        sum += (long)r;
    }
    printf("%ld\n", sum + fib(12));
    return 0;
}

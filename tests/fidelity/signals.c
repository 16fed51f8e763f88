/* tests/fidelity/signals.c — a program that forks and reaps its children
 * in a SIGCHLD handler, as a shell does: run under callgrind (one file per
 * process, tests/fidelity/run.sh), the parent's 'summary:' comes out below
 * what its cost lines add up to. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t reaped;

static void on_child(int sig)
{
    (void)sig;
    int status;
    while (waitpid(-1, &status, WNOHANG) > 0)
        reaped++;
}

static unsigned work(unsigned n)
{
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s += i * i;
    return s;
}

int main(void)
{
    sigset_t chld, before;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &before); /* delivered only inside sigsuspend(): no race */
    struct sigaction sa = {0};
    sa.sa_handler = on_child;
    sigaction(SIGCHLD, &sa, NULL);
    unsigned s = work(1000);
    for (int k = 0; k < 2; k++) {
        if (fork() == 0) _exit((int)(work(5000) & 1));
        while (reaped <= k)
            sigsuspend(&before);
    }
    printf("%u %d\n", s + work(2000), (int)reaped);
    return 0;
}

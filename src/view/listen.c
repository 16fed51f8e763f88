/*
 * view/listen.c — where `profkit view` listens and how the user gets
 * there: the listening socket, made here (not by libmicrohttpd) so a busy
 * port is known by its errno and said in one line, the next free port
 * taken when the user did not ask for one (as `pprof -http=:` does), and
 * --open's browser ($BROWSER, else xdg-open) started on the URL (through
 * a page of the user's own when the URL holds the session token).
 */
#define _DEFAULT_SOURCE /* mkstemps */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "view/view.h"

extern char **environ;

#define NEXT_PORTS 10 /* 8080 busy: 8081 … 8089, then any free port */

/* A socket bound to ss at port and listening, or -1 with errno. */
static int try_port(const struct sockaddr_storage *ss, unsigned port)
{
    struct sockaddr_storage a = *ss;
    socklen_t len;
    if (a.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&a)->sin6_port = htons((uint16_t)port),
                              len = sizeof(struct sockaddr_in6);
    else
        ((struct sockaddr_in *)&a)->sin_port = htons((uint16_t)port),
                             len = sizeof(struct sockaddr_in);
    int fd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int on = 1;
    /* a port left in TIME_WAIT by the last run is free; one with a
     * listener is not (Linux refuses that bind whatever this says) */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (a.ss_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    if (bind(fd, (struct sockaddr *)&a, len) == 0 && listen(fd, 64) == 0) return fd;
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

static unsigned port_of(int fd)
{
    struct sockaddr_storage a;
    socklen_t len = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &len) != 0) return 0;
    return ntohs(a.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&a)->sin6_port
                                         : ((struct sockaddr_in *)&a)->sin_port);
}

int pkv_listen(const struct sockaddr_storage *ss, const char *bind, unsigned port, int port_given,
               unsigned *bound)
{
    int fd = try_port(ss, port);
    /* the default port taken: the next ones, then any the kernel gives */
    for (unsigned k = 1; fd < 0 && errno == EADDRINUSE && !port_given && k <= NEXT_PORTS; k++)
        fd = try_port(ss, k < NEXT_PORTS && port + k <= 65535 ? port + k : 0);
    if (fd >= 0) {
        *bound = port_of(fd);
        if (*bound != port && port)
            fprintf(stderr, "profkit view: port %u is in use; using port %u (--port N chooses)\n",
                    port, *bound);
        return fd;
    }
    if (errno == EADDRINUSE)
        fprintf(stderr,
                "profkit view: port %u is in use on %s: choose another with --port N, or "
                "--port 0 for any free port\n",
                port, pkv_text(bind));
    else
        fprintf(stderr, "profkit view: cannot listen on %s port %u: %s\n", pkv_text(bind), port,
                strerror(errno));
    return -1;
}

/* ---- --open ---------------------------------------------------------- */

/* An executable `name` on $PATH (or a path), copied into buf. */
static int find_program(const char *name, char *buf, size_t size)
{
    if (!*name) return 0;
    if (strchr(name, '/'))
        return snprintf(buf, size, "%s", name) < (int)size && access(buf, X_OK) == 0;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin:/bin"; p;
         p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL) {
        size_t n = strcspn(p, ":");
        struct stat st;
        if (snprintf(buf, size, "%.*s/%s", (int)n, n ? p : ".", name) < (int)size &&
            access(buf, X_OK) == 0 && stat(buf, &st) == 0 && S_ISREG(st.st_mode))
            return 1;
    }
    return 0;
}

/* The browser: the first program of $BROWSER (a ':'-separated list, the
 * old convention) that exists, else xdg-open; its name in buf. */
static int find_browser(char *buf, size_t size)
{
    const char *list = getenv("BROWSER");
    for (const char *p = list; p && *p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL) {
        char name[512];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(p, ":"), p);
        if (find_program(name, buf, size)) return 1;
    }
    return find_program("xdg-open", buf, size);
}

typedef struct opener {
    pid_t pid;
    char name[512];
} opener;

/* Wait for the browser's launcher: a failure is said (the URL stays on
 * stdout), and no zombie is left. */
static void *reap(void *arg)
{
    opener *o = arg;
    int status;
    while (waitpid(o->pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "profkit view: --open: %s failed; open the URL yourself\n",
                pkv_text(o->name));
    free(o);
    return NULL;
}

/* The file a token's URL is opened through ("" when none). */
static char redirect_page[4096];

/* A page of the user's own (mode 0600) that sends the browser on to url:
 * what the browser is given instead of the URL when it holds the session
 * token, since a program's arguments are visible to every user of the
 * machine (ps) and the token is what keeps them out. */
static int write_redirect(const char *url, char *target, size_t size)
{
    const char *dir = getenv("XDG_RUNTIME_DIR");
    if (!dir || !*dir) dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    if (snprintf(redirect_page, sizeof redirect_page, "%s/profkit-view-XXXXXX.html", dir) >=
        (int)sizeof redirect_page)
        return redirect_page[0] = 0, 0;
    int fd = mkstemps(redirect_page, 5); /* mode 0600 */
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) close(fd), unlink(redirect_page);
        return redirect_page[0] = 0, 0;
    }
    /* the URL is ours: digits, a host, hex; nothing to escape */
    fprintf(f,
            "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" "
            "content=\"0;url=%s\"><title>profkit view</title><a href=\"%s\">profkit view</a>\n",
            url, url);
    if (fclose(f) != 0) return unlink(redirect_page), redirect_page[0] = 0, 0;
    return snprintf(target, size, "file://%s", redirect_page) < (int)size;
}

void pkv_open_done(void)
{
    if (redirect_page[0]) unlink(redirect_page), redirect_page[0] = 0;
}

void pkv_open_browser(const char *url, int secret)
{
    opener *o = calloc(1, sizeof *o);
    if (!o || !find_browser(o->name, sizeof o->name)) {
        fprintf(stderr, "profkit view: --open: no browser found (set BROWSER, or install "
                        "xdg-utils); open the URL yourself\n");
        free(o);
        return;
    }
    char target[4200];
    if (!secret)
        snprintf(target, sizeof target, "%s", url);
    else if (!write_redirect(url, target, sizeof target)) {
        fprintf(stderr,
                "profkit view: --open: cannot write the page that opens the URL (%s); "
                "open the URL yourself\n",
                strerror(errno));
        free(o);
        return;
    }
    /* the browser's output goes to stderr: stdout holds the URL alone */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    /* its own process group (Ctrl-C stops the server, not the browser),
     * with the signals the server waits for unblocked again */
    posix_spawnattr_t at;
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigmask(&at, &none);
    char *argv[] = {o->name, target, NULL};
    int rc = posix_spawn(&o->pid, o->name, &fa, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    pthread_t t;
    if (rc != 0) {
        fprintf(stderr, "profkit view: --open: cannot start %s: %s\n", pkv_text(o->name),
                strerror(rc));
        free(o);
    } else if (pthread_create(&t, NULL, reap, o) == 0) {
        pthread_detach(t);
    } else {
        free(o); /* the child is reaped when profkit exits */
    }
}

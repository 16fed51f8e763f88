/*
 * view/messages.c — how `profkit view` speaks on stderr: names from
 * files made visible (escapes, controls: pk_text_escape()) and the
 * library's last error, with the exit status it deserves.
 */
#include <stdio.h>

#include "view/view.h"

const char *pkv_text(const char *s)
{
    static char ring[4][2048];
    static unsigned next;
    char *buf = ring[next++ % 4];
    pk_text_escape(s ? s : "-", buf, sizeof ring[0]);
    return buf;
}

int pkv_library_error(pk_status st)
{
    fputs("profkit view: ", stderr);
    pk_text_put(stderr, pk_error_last());
    fputc('\n', stderr);
    return st == PK_ERR_INVALID_ARG ? PKV_USAGE : PKV_BAD;
}

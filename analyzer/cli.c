/*
 * cli.c — what every subcommand shares on the command line: messages ("cumemtrack: ..." on
 * stderr), output files (-o FILE or stdout).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmt_cmds.h"

FILE *cmt_msg_out;

void cmt_msg(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    FILE *out = cmt_msg_out ? cmt_msg_out : stderr;
    fputs("cumemtrack: ", out);
    vfprintf(out, fmt, ap);
    fputc('\n', out);
    va_end(ap);
}

FILE *cmt_open_output(const char *path) {
    if (!path || !strcmp(path, "-")) return stdout;
    FILE *f = fopen(path, "w");
    if (!f) cmt_msg("%s: cannot write: %m", path);
    return f;
}

int cmt_close_output(FILE *f, const char *path) {
    int bad = ferror(f);
    if (f == stdout) bad |= fflush(f) != 0;
    else bad |= fclose(f) != 0;
    if (bad) {
        cmt_msg("%s: write error", path ? path : "stdout");
        return 3;
    }
    return 0;
}

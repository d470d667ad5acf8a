/*
 * cli.c — what every subcommand shares on the command line; see cli.h.
 */
#include "cli.h"

#include "reader.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    if (f == stdout)
        bad |= fflush(f) != 0;
    else
        bad |= fclose(f) != 0;
    if (bad) {
        cmt_msg("%s: write error", path ? path : "stdout");
        return 3;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push(char ***v, size_t *n, size_t *cap, char *s) {
    if (!s) return -1;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        char **nv = realloc(*v, nc * sizeof *nv);
        if (!nv) {
            free(s);
            return -1;
        }
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = s;
    return 0;
}

/* A dump file name in a directory: NAME.cmt or NAME.cmt.N (the tracer's .1, .2 ...), not
 * NAME.cmt.bak or other copies. */
static int dump_name(const char *name) {
    const char *p = strstr(name, ".cmt"), *last = NULL;
    for (; p; p = strstr(p + 1, ".cmt"))
        last = p;
    if (!last || last == name) return 0;
    last += 4;
    if (!*last) return 1;
    if (*last++ != '.' || !*last) return 0;
    for (; *last; last++)
        if (*last < '0' || *last > '9') return 0;
    return 1;
}

/* Drops every path whose dump is the same dump (cmt_format.h IDENTITY) as an earlier one, saying
 * so on stderr; unreadable files stay (the loader names them). */
static void drop_duplicates(char **v, size_t *n) {
    struct cmt_file_header *h = calloc(*n ? *n : 1, sizeof *h);
    unsigned char *ok = calloc(*n ? *n : 1, 1);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        int dup = 0;
        if (h && ok && cmt_dump_read_header(v[i], &h[k]) == 0) {
            for (size_t j = 0; j < k && !dup; j++)
                if (ok[j] && cmt_header_same_dump(&h[j], &h[k])) {
                    dup = 1;
                    cmt_msg("%s: the same dump as %s (host %.64s, pid %u): counted once", v[i], v[j],
                            h[k].host[0] ? h[k].host : "?", h[k].pid);
                }
            ok[k] = 1;
        } else if (ok)
            ok[k] = 0;
        if (dup) {
            free(v[i]);
            continue;
        }
        v[k++] = v[i];
    }
    *n = k;
    free(h);
    free(ok);
}

int cmt_expand_paths(char **args, int nargs, char ***paths, size_t *npaths, char *err, size_t errlen) {
    char **v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < nargs; i++) {
        struct stat st;
        if (stat(args[i], &st) != 0) {
            snprintf(err, errlen, "%s: %s", args[i], strerror(errno));
            goto fail;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (push(&v, &n, &cap, strdup(args[i])) != 0) goto oom;
            continue;
        }
        DIR *d = opendir(args[i]);
        if (!d) {
            snprintf(err, errlen, "%s: %s", args[i], strerror(errno));
            goto fail;
        }
        size_t start = n;
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!dump_name(de->d_name)) continue;
            size_t len = strlen(args[i]) + strlen(de->d_name) + 2;
            char *p = malloc(len);
            if (!p) {
                closedir(d);
                goto oom;
            }
            snprintf(p, len, "%s/%s", args[i], de->d_name);
            struct stat fs;
            if (stat(p, &fs) != 0 || !S_ISREG(fs.st_mode)) {
                free(p);
                continue;
            }
            if (push(&v, &n, &cap, p) != 0) {
                closedir(d);
                goto oom;
            }
        }
        closedir(d);
        if (n == start) {
            snprintf(err, errlen, "%s: no dump files (*.cmt, *.cmt.N) in this directory", args[i]);
            goto fail;
        }
        qsort(v + start, n - start, sizeof *v, cmp_str);
    }
    drop_duplicates(v, &n);
    *paths = v;
    *npaths = n;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    cmt_free_paths(v, n);
    return -1;
}

void cmt_free_paths(char **paths, size_t n) {
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

int cmt_common_option(const char *cmd, int c, const char *arg, struct cmt_report_opts *ro,
                      struct cmt_suppressions *supp, struct cmt_caching *caching, size_t *top) {
    char err[1024];
    switch (c) {
    case 't': {
        char *end;
        long v = strtol(arg, &end, 10);
        if (!*arg || *end || v < 1 || v > 1000000) {
            cmt_msg("%s: --top needs a positive number, not '%s'", cmd, arg);
            return -1;
        }
        *(top ? top : &ro->top_n) = (size_t)v;
        return 1;
    }
    case 's':
        if (cmt_suppress_load(supp, arg, err, sizeof err) != 0) {
            cmt_msg("%s", err);
            return -1;
        }
        ro->suppressions = supp;
        return 1;
    case 'n':
        ro->no_symbols = 1;
        return 1;
    case 'd':
        ro->debug_dir = arg;
        return 1;
    case 'q':
        ro->progress = NULL;
        return 1;
    case 'C':
        if (!caching || cmt_caching_add(caching, arg, err, sizeof err) != 0) {
            cmt_msg("%s: --caching-allocator: %s", cmd, caching ? err : "not an option here");
            return -1;
        }
        ro->caching = caching;
        return 1;
    default:
        return 0;
    }
}

void cmt_cli_progress(struct cmt_report_opts *ro, int quiet) {
    ro->progress = !quiet && !cmt_msg_out && isatty(STDERR_FILENO) ? stderr : NULL;
}

void cmt_report_unreadable(const struct cmt_analysis *a) {
    if (!a->nprocs) return; /* nothing read: the caller says why */
    for (size_t i = 0; i < a->nunreadable; i++) {
        const struct cmt_unreadable *u = &a->unreadable[i];
        if (u->offset >= 0)
            cmt_msg("%s: unreadable, left out: offset %lld: %s", u->path, (long long)u->offset, u->reason);
        else
            cmt_msg("%s: unreadable, left out: %s", u->path, u->reason);
    }
}

void cmt_report_notes(const struct cmt_analysis *a) {
    for (size_t k = 0; k < a->nnotes; k++)
        cmt_msg("%s", a->notes[k].text);
}

int cmt_load_dumps(struct cmt_analysis *a, const struct cmt_report_opts *ro, char **args, int nargs) {
    char **paths, err[1024];
    size_t np;
    if (cmt_expand_paths(args, nargs, &paths, &np, err, sizeof err) != 0) {
        cmt_msg("%s", err);
        memset(a, 0, sizeof *a);
        return 3;
    }
    int rc = cmt_analysis_load(a, ro, paths, np);
    cmt_report_unreadable(a);
    if (rc) cmt_msg("%s", a->err);
    cmt_free_paths(paths, np);
    return rc;
}

int cmt_write_output(const char *path, int (*write)(void *arg, FILE *f), void *arg) {
    FILE *f = cmt_open_output(path);
    if (!f) return 3;
    int rc = write(arg, f);
    int crc = cmt_close_output(f, path);
    return rc ? rc : crc;
}

int cmt_analysis_status(const struct cmt_analysis *a) {
    if (!a->out_of_memory) return 0;
    cmt_msg("out of memory: %llu stack%s could not be symbolized; the output is incomplete",
            (unsigned long long)a->out_of_memory, a->out_of_memory == 1 ? "" : "s");
    return 3;
}

int cmt_cli_parse(struct cmt_cli *c, int argc, char **argv, const char *shortopts, const struct option *opts,
                  int (*own)(struct cmt_cli *c, int opt, const char *arg)) {
    int o;
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
        if (o == 'h') {
            fputs(c->help, stdout);
            cmt_cli_free(c);
            return 0;
        }
        if (o == 'o') {
            c->out = optarg;
            continue;
        }
        int r = own ? own(c, o, optarg) : 0;
        if (!r) r = cmt_common_option(c->cmd, o, optarg, &c->ro, &c->supp, &c->caching, c->top);
        if (o == 'q' && r > 0) c->quiet = 1;
        if (r > 0) continue;
        if (!r) cmt_msg("%s: unknown or incomplete option '%s'\n%s", c->cmd, argv[optind - 1], c->help);
        cmt_cli_free(c);
        return 2;
    }
    if (c->need_dumps && optind >= argc) {
        cmt_msg("%s: no dump given\n%s", c->cmd, c->help);
        cmt_cli_free(c);
        return 2;
    }
    cmt_cli_progress(&c->ro, c->quiet);
    return -1;
}

void cmt_cli_free(struct cmt_cli *c) {
    cmt_suppress_free(&c->supp);
    cmt_caching_free(&c->caching);
}

/*
 * cli.h — what every subcommand shares on the command line: messages ("cumemtrack: ..." on
 * stderr), output files (-o FILE or stdout), the common analysis options, DUMP|DIR arguments
 * expanded into dump paths, and loading them into an analysis. Used by cmd_*.c and main.c only.
 */
#ifndef CMT_CLI_H
#define CMT_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "analysis.h"

#define CMT_VERSION "0.1.0"

/* Messages to stderr (or cmt_msg_out when set: the fuzzer drops them), prefixed "cumemtrack: ". */
extern FILE *cmt_msg_out;
void cmt_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Opens -o FILE (or stdout for NULL); returns NULL after a message. */
FILE *cmt_open_output(const char *path);
/* Closes what cmt_open_output returned; returns 0 or 3 after a message (write error). */
int cmt_close_output(FILE *f, const char *path);

/* Opens path (NULL or "-": stdout), lets write(arg, f) fill it (returning 0 or an exit code),
 * closes it: the first non-zero exit code, or 0. */
int cmt_write_output(const char *path, int (*write)(void *arg, FILE *f), void *arg);

/* Expands DUMP|DIR arguments into a malloc'd array of malloc'd paths (dirs: regular files named
 * *.cmt or *.cmt.N, sorted); a file holding the same dump as an earlier one (a copy, or named
 * twice) is left out with a message on stderr. Returns 0, or -1 with err set. */
int cmt_expand_paths(char **args, int nargs, char ***paths, size_t *npaths, char *err, size_t errlen);
void cmt_free_paths(char **paths, size_t n);

/* The options every analysis command shares, for getopt_long tables: --top N, --suppressions
 * FILE, --no-symbols, --debug-dir DIR, --quiet, --caching-allocator REGEX (codes 't', 's', 'n', 'd', 'q',
 * 'C'). */
#define CMT_COMMON_OPTIONS                                                                                             \
    {"top", required_argument, 0, 't'}, {"suppressions", required_argument, 0, 's'},                                   \
        {"no-symbols", no_argument, 0, 'n'}, {"debug-dir", required_argument, 0, 'd'},                                 \
        {"quiet", no_argument, 0, 'q'}, {                                                                              \
        "caching-allocator", required_argument, 0, 'C'                                                                 \
    }
/* The help lines of --caching-allocator (report, check, diff). */
#define CMT_CACHING_HELP                                                                                               \
    "  --caching-allocator REGEX  also a caching allocator: a stack with a frame whose function,\n"                     \
    "                       file or module matches REGEX (POSIX extended; repeatable) is held by it\n"
/* --quiet, or stderr not a terminal: no progress line (ro->progress NULL); else stderr. */
void cmt_cli_progress(struct cmt_report_opts *ro, int quiet);
/* Handles option c when it is one of those: returns 1 (handled), 0 (not one of them), or -1 after
 * printing a usage error for cmd (exit 2). --top goes to *top when given, else to ro->top_n. */
int cmt_common_option(const char *cmd, int c, const char *arg, struct cmt_report_opts *ro,
                      struct cmt_suppressions *supp, struct cmt_caching *caching, size_t *top);
/* Names every dump the analysis left out (unreadable[]) on stderr, when some other dump was read. */
void cmt_report_unreadable(const struct cmt_analysis *a);
/* Writes every note of the analysis (analysis.h notes[]: Python frames missing) on stderr, one line
 * each: for the outputs with no place for them (run's summary, flame's folded stacks). */
void cmt_report_notes(const struct cmt_analysis *a);
/* Expands DUMP|DIR arguments and loads them into a (naming the unreadable dumps left out): 0, or 3
 * after printing why (no dump could be read). a must be freed
 * with cmt_analysis_free either way. */
int cmt_load_dumps(struct cmt_analysis *a, const struct cmt_report_opts *ro, char **args, int nargs);
/* A command line being parsed: fill cmd, help, need_dumps (and top, where --top is the command's
 * own); the common options land in ro and supp (free supp with cmt_suppress_free), -o in out. */
struct cmt_cli {
    const char *cmd, *help;
    int need_dumps; /* at least one operand */
    size_t *top;    /* --top goes here when set, else to ro.top_n */
    struct cmt_report_opts ro;
    struct cmt_suppressions supp;
    struct cmt_caching caching; /* --caching-allocator rules (ro.caching points here) */
    const char *out;
    int quiet; /* --quiet: ro.progress stays NULL */
    void *arg; /* for own() */
};
/* getopt_long over argv: -h prints the help, -o sets out, own() gets every other option first
 * (returns 1 taken, 0 not its own, -1 after a usage message), then the common options. Returns -1
 * to go on (optind: the first operand), else the exit code (0 help printed, 2 usage error after a
 * message), c freed (cmt_cli_free). */
int cmt_cli_parse(struct cmt_cli *c, int argc, char **argv, const char *shortopts, const struct option *opts,
                  int (*own)(struct cmt_cli *c, int opt, const char *arg));
/* Frees what parsing kept (suppressions, caching-allocator rules). */
void cmt_cli_free(struct cmt_cli *c);

/* After rendering: 0, or 3 after a message when the analysis ran out of memory on the way (the
 * one error convention: a message prefixed "cumemtrack: " on stderr and exit 3, never exit 0). */
int cmt_analysis_status(const struct cmt_analysis *a);

#endif

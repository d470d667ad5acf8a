/*
 * main.c — cumemtrack SUBCOMMAND ...: dispatches through cmt_commands[] (name, function, summary).
 * Conventions for every subcommand: data to stdout (or -o FILE), messages to stderr prefixed
 * "cumemtrack: ", exit 0 ok, 1 check failed, 2 usage, 3 bad input.
 */
#include <stdio.h>
#include <string.h>

#include "cmt_format.h"
#include "cli.h"
#include "cmds.h"

struct cmt_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct cmt_command cmt_commands[] = {
    {"run", cmt_cmd_run, "run a command under the tracer, then list its dumps and summarize them"},
    {"report", cmt_cmd_report, "leaks, peaks, OOMs, imbalance and anomalies of one or many dumps"},
    {"check", cmt_cmd_check, "CI gate: fail on leaks over budget or regressions against a baseline"},
    {"diff", cmt_cmd_diff, "compare two runs: leaks, peaks per GPU (by uuid) and per stack (by function chain)"},
    {"dump", cmt_cmd_dump, "every record of a dump in merged order, one line each"},
    {"flame", cmt_cmd_flame, "folded stacks of leaks or of the peak, for flamegraph.pl and speedscope"},
    {"top", cmt_cmd_top, "a live view of running jobs: per GPU, per process, the stacks holding and growing memory"},
    {"timeline", cmt_cmd_timeline, "live device memory over time (text, CSV, Perfetto/Chrome trace JSON)"},
    {"export", cmt_cmd_export, "one process as PyTorch's memory snapshot (a pickle for PyTorch's memory viewer)"},
};

static void usage(FILE *f) {
    fprintf(f, "usage: cumemtrack SUBCOMMAND [OPTIONS] ...\n\nsubcommands:\n");
    for (size_t i = 0; i < sizeof cmt_commands / sizeof cmt_commands[0]; i++)
        fprintf(f, "  %-10s %s\n", cmt_commands[i].name, cmt_commands[i].summary);
    fprintf(f, "\n'cumemtrack SUBCOMMAND --help' describes one; 'cumemtrack --version' prints the version.\n"
               "exit codes: 0 ok, 1 check failed, 2 usage error, 3 unreadable or corrupt input\n"
               "documents: man cumemtrack; README.md; the JSON schema of report --json,\n"
               "PREFIX/share/cumemtrack/report-schema.json (PREFIX: where cumemtrack is installed)\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("cumemtrack %s (dump format %d.%d)\n", CMT_VERSION, CMT_VERSION_MAJOR, CMT_VERSION_MINOR);
        return 0;
    }
    for (size_t i = 0; i < sizeof cmt_commands / sizeof cmt_commands[0]; i++)
        if (!strcmp(argv[1], cmt_commands[i].name)) return cmt_commands[i].fn(argc - 1, argv + 1);
    cmt_msg("unknown subcommand '%s' (see cumemtrack --help)", argv[1]);
    return 2;
}

/*
 * fuzz_report.c — libFuzzer target over the analyzer's input paths: the input is a dump file
 * (written into a memfd and opened by its /proc/self/fd path, so the reader's real open/fstat/mmap
 * path is exercised), then
 *   - the report path: cmt_analysis_load (reader + replay + merge) and both report writers;
 *   - the dump path: `cumemtrack dump` and `dump --raw` (every record decoded and printed);
 *   - the check path: `cumemtrack check --no-symbols --max-leak-bytes 1`.
 * Output goes to /dev/null. Built by `make fuzz` (tests/reliability/reliability.mk) with
 * clang -fsanitize=fuzzer,address,undefined; the analyzer's main.c is left out and its messages
 * go to /dev/null (cmt_msg_out).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "render.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    devnull = fopen("/dev/null", "w");
    cmt_msg_out = devnull; /* messages are formatted, then dropped */
    /* the subcommands print to stdout: send it to /dev/null too (libFuzzer reports on stderr) */
    int fd = fileno(devnull);
    dup2(fd, 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = memfd_create("cmt-fuzz", MFD_CLOEXEC);
    if (fd < 0) return 0;
    size_t at = 0;
    while (at < size) {
        ssize_t w = write(fd, data + at, size - at);
        if (w <= 0) break;
        at += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

    struct cmt_report_opts ro = {0};
    ro.no_symbols = 1;
    char *paths[1] = {path};
    struct cmt_analysis a;
    if (cmt_analysis_load(&a, &ro, paths, 1) == 0) {
        cmt_render_json(&a, devnull);
        cmt_render_text(&a, devnull);
    }
    cmt_analysis_free(&a);

    char *dump_argv[] = {"dump", path, NULL};
    cmt_cmd_dump(2, dump_argv);
    char *raw_argv[] = {"dump", "--raw", path, NULL};
    cmt_cmd_dump(3, raw_argv);
    char *check_argv[] = {"check", "--no-symbols", "--max-leak-bytes", "1", path, NULL};
    cmt_cmd_check(5, check_argv);
    close(fd);
    return 0;
}

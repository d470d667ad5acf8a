/*
 * cmt_cmds.h — the subcommands of the cumemtrack binary. Each is int cmt_cmd_NAME(int argc,
 * char **argv) with argv[0] the subcommand name; it returns the exit code (0 ok, 1 check failed,
 * 2 usage, 3 bad input). main.c lists them in its dispatch table.
 */
#ifndef CMT_CMDS_H
#define CMT_CMDS_H

int cmt_cmd_report(int argc, char **argv);
int cmt_cmd_check(int argc, char **argv);
int cmt_cmd_dump(int argc, char **argv);
/* written separately: */
int cmt_cmd_run(int argc, char **argv);
int cmt_cmd_diff(int argc, char **argv);
int cmt_cmd_timeline(int argc, char **argv);
int cmt_cmd_flame(int argc, char **argv);

/* Messages to stderr (or cmt_msg_out when set: the fuzzer drops them), prefixed "cumemtrack: ". */
#include <stdio.h>
extern FILE *cmt_msg_out;
void cmt_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Opens -o FILE (or stdout for NULL); returns NULL after a message. */
FILE *cmt_open_output(const char *path);
/* Closes what cmt_open_output returned; returns 0 or 3 after a message (write error). */
int cmt_close_output(FILE *f, const char *path);

#define CMT_VERSION "0.1.0"

#endif

/*
 * cmds.h — the subcommands of the cumemtrack binary. Each is int cmt_cmd_NAME(int argc, char
 * **argv) with argv[0] the subcommand name: options -> analysis -> one renderer; it returns the
 * exit code (0 ok, 1 check failed, 2 usage, 3 bad input). main.c lists them in its dispatch table.
 */
#ifndef CMT_CMDS_H
#define CMT_CMDS_H

int cmt_cmd_report(int argc, char **argv);
int cmt_cmd_check(int argc, char **argv);
int cmt_cmd_dump(int argc, char **argv);
int cmt_cmd_run(int argc, char **argv);
int cmt_cmd_diff(int argc, char **argv);
int cmt_cmd_timeline(int argc, char **argv);
int cmt_cmd_flame(int argc, char **argv);
int cmt_cmd_top(int argc, char **argv);
int cmt_cmd_export(int argc, char **argv);

#endif

/*
 * cmd_top.c — cumemtrack top [-n SECONDS] [--window SECONDS] [--once] [--json] [--top N] DIR|DUMP...:
 * options -> the live model (live.h) -> refresh -> render_top.c, every -n seconds on a terminal
 * (raw mode: `q` quits; the terminal is restored on every exit path, signals included), or once
 * (--once, or stdout not a terminal). A directory is watched for dumps that appear later.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "live.h"
#include "render.h"

static const char top_help[] =
    "usage: cumemtrack top [-n SECONDS] [--window SECONDS] [--once] [--json] [--top N] [--no-symbols]\n"
    "                      DIR|DUMP...\n"
    "A live view of running jobs from their dumps: per GPU (live, total, peak, a sparkline, alerts,\n"
    "the driver's used/total), per process (live, peak, growth rate, driver's figure, untracked,\n"
    "running/exited/died) and the stacks holding and growing memory. A DIR is watched for new dumps.\n"
    "  -n SECONDS        refresh interval (default 1)\n"
    "  --window SECONDS  growth window of the top stacks (default 60)\n"
    "  --once            print one plain-text frame and exit (also when stdout is not a terminal)\n"
    "  --frames N        print N frames, one per refresh, then exit (plain text when stdout is not a\n"
    "                    terminal: frames one after the other)\n"
    "  --json            with --once: the frame as one JSON document (schema: see man cumemtrack)\n"
    "  --top N           stacks listed per table (default 5)\n"
    "Keys: q quits.\n"
    "exit: 0 ok, 2 usage, 3 unreadable or corrupt input\n";

static struct termios saved_tty;
static volatile sig_atomic_t tty_saved;

static void restore_tty(void) {
    if (tty_saved) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
        static const char show[] = "\033[?25h\n";
        ssize_t w = write(STDOUT_FILENO, show, sizeof show - 1);
        (void)w;
        tty_saved = 0;
    }
}

static void on_signal(int sig) {
    restore_tty(); /* tcsetattr and write are async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_seconds(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 86400) return -1;
    *out = v;
    return 0;
}

int cmt_cmd_top(int argc, char **argv) {
    static const struct option opts[] = {
        {"window", required_argument, 0, 'w'}, {"once", no_argument, 0, '1'},
        {"json", no_argument, 0, 'j'},         {"top", required_argument, 0, 't'},
        {"no-symbols", no_argument, 0, 'N'},   {"help", no_argument, 0, 'h'},
        {"frames", required_argument, 0, 'F'},
        {0, 0, 0, 0},
    };
    double interval = 1, window = 60;
    int once = 0, json = 0, no_sym = 0, c;
    size_t top = 5;
    long frames = 0; /* 0: until q */
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (parse_seconds(optarg, &interval) != 0) {
                cmt_msg("top: -n wants a positive number of seconds, not \"%s\"", optarg);
                return 2;
            }
            break;
        case 'w':
            if (parse_seconds(optarg, &window) != 0) {
                cmt_msg("top: --window wants a positive number of seconds, not \"%s\"", optarg);
                return 2;
            }
            break;
        case '1':
            once = 1;
            break;
        case 'j':
            json = 1;
            break;
        case 't': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 64) {
                cmt_msg("top: --top wants 1..64, not \"%s\"", optarg);
                return 2;
            }
            top = (size_t)v;
            break;
        }
        case 'N':
            no_sym = 1;
            break;
        case 'F': {
            char *end;
            frames = strtol(optarg, &end, 10);
            if (*end || frames < 1 || frames > 100000000) {
                cmt_msg("top: --frames wants a positive count, not \"%s\"", optarg);
                return 2;
            }
            break;
        }
        case 'h':
            fputs(top_help, stdout);
            return 0;
        default:
            cmt_msg("top: unknown option \"%s\" (see cumemtrack top --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (optind >= argc) {
        cmt_msg("top: no DIR or DUMP given (see cumemtrack top --help)");
        return 2;
    }
    if (json && !once) {
        cmt_msg("top: --json needs --once (one document)");
        return 2;
    }
    int tty = isatty(STDOUT_FILENO);
    if (!tty && !frames) once = 1;
    struct cmt_live L;
    if (cmt_live_init(&L, window, interval, no_sym, NULL) != 0) {
        cmt_msg("top: out of memory");
        cmt_live_free(&L);
        return 3;
    }
    L.snapshot = once || frames == 1; /* a follower lags one refresh (reader.h): one refresh reads all */
    char err[1024];
    for (int i = optind; i < argc; i++)
        if (cmt_live_add(&L, argv[i], err, sizeof err) != 0) {
            cmt_msg("%s", err);
            cmt_live_free(&L);
            return 3;
        }
    int rc = 0;
    if (once) {
        cmt_live_refresh(&L, mono_s());
        if (json)
            cmt_render_top_json(&L, stdout, top);
        else
            cmt_render_top_text(&L, stdout, top);
        for (size_t i = 0; i < L.nprocs; i++)
            if (L.procs[i].corrupt) rc = 3;
        if (fflush(stdout) != 0) rc = 3;
        cmt_live_free(&L);
        return rc;
    }
    int keys = tty && isatty(STDIN_FILENO);
    if (keys && tcgetattr(STDIN_FILENO, &saved_tty) == 0) {
        struct termios raw = saved_tty;
        raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        raw.c_cc[VMIN] = 0;
        raw.c_cc[VTIME] = 0;
        tty_saved = 1;
        atexit(restore_tty);
        static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            signal(sigs[i], on_signal);
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
    }
    if (tty) fputs("\033[?25l", stdout);
    for (long shown = 0, quit = 0; !quit;) {
        cmt_live_refresh(&L, mono_s());
        if (tty) fputs("\033[H\033[2J", stdout);
        cmt_render_top_text(&L, stdout, top);
        fputs(keys ? "\n(q quits)" : tty ? "" : "\n", stdout);
        if (fflush(stdout) != 0) {
            rc = 3;
            break;
        }
        if (frames && ++shown >= frames) break;
        double until = mono_s() + interval;
        for (;;) {
            double left = until - mono_s();
            if (left <= 0) break;
            struct pollfd pf = {STDIN_FILENO, POLLIN, 0};
            int n = poll(&pf, keys ? 1 : 0, (int)(left * 1000) + 1);
            if (n > 0) {
                char ch;
                ssize_t r = read(STDIN_FILENO, &ch, 1);
                if (r == 1 && (ch == 'q' || ch == 'Q')) {
                    quit = 1;
                    break;
                }
                if (r == 0) keys = 0; /* end of input: refresh only */
            }
        }
    }
    restore_tty();
    if (tty && !keys) fputs("\033[?25h", stdout);
    cmt_live_free(&L);
    return rc;
}

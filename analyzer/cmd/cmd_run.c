/*
 * cmd_run.c — cumemtrack run [-o TEMPLATE] [--depth N] [--no-children] [--quiet] -- CMD [ARGS...]
 *
 * Runs CMD under the tracer: finds libcumemtrack.so (CUMEMTRACK_LIB, else next to this binary,
 * else ../lib/cumemtrack/ when installed), appends it to LD_PRELOAD (existing entries kept; a
 * libasan the program needs is put first, as ASan requires), points CUMEMTRACK_MANIFEST at a
 * private mkstemp file in $TMPDIR, sets CUMEMTRACK_OUTPUT / _DEPTH / _NO_CHILDREN, then fork +
 * execvp. SIGINT/SIGTERM/SIGHUP/SIGQUIT sent to us by another process are forwarded to the child
 * (terminal-generated ones already reached it through the process group). When the command ends,
 * the dumps the manifest names (one line per dump the tracer created, in any process of the
 * command) are listed on stderr with a three-line summary from the report API: leaks, peak per
 * GPU, OOMs (not with --quiet). Before the command starts, the template's missing directories are
 * created (0700) and the dump directory must take a new file. Exit: the command's status; 128+N when it was killed by
 * signal N; 127 when it could not be executed (or the tracer is missing); 2 usage, or a dump
 * directory that cannot be created or written.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "cli.h"
#include "reader.h"
#include "running.h"

static const char run_help[] =
    "usage: cumemtrack run [OPTIONS] [--] CMD [ARGS...]\n"
    "Runs CMD with the tracer preloaded (its children too, unless --no-children), then lists the\n"
    "dumps written and prints a summary (leaks, peak per GPU, OOMs) to stderr.\n"
    "  -o, --output TEMPLATE  dump path template: %h host, %p pid, %r rank, %% a percent sign\n"
    "                         (default: $CUMEMTRACK_OUTPUT, else cumemtrack.%h.%p.cmt in the\n"
    "                         current directory); missing directories are created (mode 0700)\n"
    "  --depth N              stack frames recorded per allocation, 0..256 (default 64)\n"
    "  --no-children          trace CMD only: exec'd children run untracked, forked ones are silent\n"
    "  --wait SECONDS         after CMD exits, wait up to SECONDS (default 10) for processes still\n"
    "                         writing a dump (orphaned children); those still running then are\n"
    "                         named and their live memory is live now, not leaked\n"
    "  --tensors              PyTorch: PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync for the job\n"
    "                         (appended to a value naming no backend; a value naming one is left\n"
    "                         alone, with a warning): every tensor is one cudaMallocAsync/\n"
    "                         cudaFreeAsync pair, with its own stack and Python frames\n"
    "  -q, --quiet            no list of dumps and no summary at the end (errors still show):\n"
    "                         for wrappers that report themselves (the pytest plugin)\n"
    "  -h, --help             this text\n"
    "environment: CUMEMTRACK_LIB overrides where libcumemtrack.so is found.\n"
    "exit: the command's status; 128+N if it was killed by signal N; 127 if it could not be run;\n"
    "2 usage error, or the dump directory cannot be created or written (checked before CMD starts)\n";

#define CMT_RUN_EXEC_FAILED 127

static volatile sig_atomic_t cmt_run_child;   /* pid of the command, 0 before the fork */
static volatile sig_atomic_t cmt_run_pending; /* a signal that arrived before the fork */

static void cmt_run_forward(int sig, siginfo_t *si, void *uc) {
    (void)uc;
    /* Signals from the terminal (si_code > 0, SI_KERNEL) went to the whole foreground process
     * group, the command included: forwarding them would deliver them twice. */
    if (si && si->si_code > 0) return;
    pid_t pid = (pid_t)cmt_run_child;
    if (pid > 0)
        kill(pid, sig);
    else
        cmt_run_pending = sig;
}

static const int cmt_run_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define CMT_RUN_NSIG (sizeof cmt_run_signals / sizeof cmt_run_signals[0])

/* ---------------------------------------------------------------- locating things */

static int cmt_run_is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The tracer library, absolute, into out. Returns 0, or -1 after a message. */
static int cmt_run_find_lib(char *out, size_t cap) {
    const char *env = getenv("CUMEMTRACK_LIB");
    if (env && *env) {
        if (!cmt_run_is_file(env) || !realpath(env, out)) {
            cmt_msg("run: CUMEMTRACK_LIB=%s: not a readable file", env);
            return -1;
        }
    } else {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) {
            cmt_msg("run: cannot resolve /proc/self/exe: %m (set CUMEMTRACK_LIB)");
            return -1;
        }
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) *slash = 0;
        static const char *const rel[] = {"libcumemtrack.so", "../lib/cumemtrack/libcumemtrack.so"};
        int found = 0;
        for (size_t i = 0; i < sizeof rel / sizeof rel[0] && !found; i++) {
            char cand[PATH_MAX + 64];
            snprintf(cand, sizeof cand, "%s/%s", self, rel[i]);
            found = cmt_run_is_file(cand) && realpath(cand, out);
        }
        if (!found) {
            cmt_msg("run: libcumemtrack.so is neither in %s nor in %s/../lib/cumemtrack "
                    "(set CUMEMTRACK_LIB)",
                    self, self);
            return -1;
        }
    }
    (void)cap;
    /* an ELF shared object (ET_DYN), or the loader only warns and the job runs untracked */
    unsigned char eh[18] = {0};
    int lfd = open(out, O_RDONLY | O_CLOEXEC);
    ssize_t got = lfd >= 0 ? read(lfd, eh, sizeof eh) : -1;
    if (lfd >= 0) close(lfd);
    if (got != (ssize_t)sizeof eh || memcmp(eh, "\177ELF", 4) != 0 || eh[16] != 3 /* ET_DYN */) {
        cmt_msg("run: %s is not a shared library (ELF ET_DYN)%s", out, env && *env ? " (CUMEMTRACK_LIB)" : "");
        return -1;
    }
    if (strpbrk(out, ": ")) {
        cmt_msg("run: the tracer's path '%s' contains ':' or ' ', which LD_PRELOAD cannot hold", out);
        return -1;
    }
    return 0;
}

/* The file execvp would run for cmd (searching PATH), into out; 0 or -1. */
static int cmt_run_which(const char *cmd, char *out, size_t cap) {
    if (strchr(cmd, '/')) {
        snprintf(out, cap, "%s", cmd);
        return cmt_run_is_file(out) ? 0 : -1;
    }
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/bin:/usr/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(out, cap, "%.*s%s%s", (int)n, path, n ? "/" : "", cmd);
        if (cmt_run_is_file(out) && access(out, X_OK) == 0) return 0;
        path += n;
        if (*path == ':') path++;
    }
    return -1;
}

/* The DT_NEEDED entry naming libasan ("libasan.so.8") of an ELF file, into out; 1 found, 0 not,
 * also for anything that is not a dynamic ELF file (a script, a static binary). */
static int cmt_run_needed_asan(const char *file, char *out, size_t cap) {
    int found = 0;
    if (elf_version(EV_CURRENT) == EV_NONE) return 0;
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    if (e && elf_kind(e) == ELF_K_ELF) {
        Elf_Scn *scn = NULL;
        while (!found && (scn = elf_nextscn(e, scn))) {
            GElf_Shdr sh;
            if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC) continue;
            Elf_Data *d = elf_getdata(scn, NULL);
            size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
            for (size_t i = 0; d && i < n && !found; i++) {
                GElf_Dyn dyn;
                if (!gelf_getdyn(d, (int)i, &dyn)) break;
                if (dyn.d_tag == DT_NULL) break;
                if (dyn.d_tag != DT_NEEDED) continue;
                const char *name = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
                if (name && !strncmp(name, "libasan.so", 10)) {
                    snprintf(out, cap, "%s", name);
                    found = 1;
                }
            }
        }
    }
    if (e) elf_end(e);
    close(fd);
    return found;
}

/* 1 when the colon/space separated list has an entry whose file name starts with prefix (or,
 * with whole set, equals the entry). */
static int cmt_run_list_has(const char *list, const char *what, int whole) {
    const char *s = list;
    while (*s) {
        size_t n = strcspn(s, ": ");
        if (n) {
            if (whole) {
                if (strlen(what) == n && !memcmp(s, what, n)) return 1;
            } else {
                const char *base = s;
                for (size_t i = 0; i < n; i++)
                    if (s[i] == '/') base = s + i + 1;
                size_t bn = n - (size_t)(base - s), wn = strlen(what);
                if (bn >= wn && !memcmp(base, what, wn)) return 1;
            }
        }
        s += n;
        while (*s == ':' || *s == ' ')
            s++;
    }
    return 0;
}

/* The new LD_PRELOAD: [libasan the program needs, when not already preloaded] existing entries,
 * then the tracer (unless already there). malloc'd. */
static char *cmt_run_ld_preload(const char *lib, const char *program) {
    const char *old = getenv("LD_PRELOAD");
    if (!old) old = "";
    char asan[256] = "";
    char file[PATH_MAX];
    if (!cmt_run_list_has(old, "libasan.so", 0) && cmt_run_which(program, file, sizeof file) == 0)
        cmt_run_needed_asan(file, asan, sizeof asan);
    size_t cap = strlen(old) + strlen(lib) + strlen(asan) + 4;
    char *out = malloc(cap);
    if (!out) return NULL;
    out[0] = 0;
    if (asan[0]) strcat(out, asan);
    if (old[0]) {
        if (out[0]) strcat(out, ":");
        strcat(out, old);
    }
    if (!cmt_run_list_has(old, lib, 1)) {
        if (out[0]) strcat(out, ":");
        strcat(out, lib);
    }
    return out;
}

/* ---------------------------------------------------------------- after the command */

/* The manifest's lines (dump paths, in creation order, duplicates dropped), malloc'd. */
static size_t cmt_run_read_manifest(const char *path, char ***out) {
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = 0, cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) > 0) {
        if (line[len - 1] == '\n') line[--len] = 0;
        if (!len) continue;
        int dup = 0;
        for (size_t i = 0; i < n && !dup; i++)
            dup = !strcmp((*out)[i], line);
        if (dup) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            char **v = realloc(*out, cap * sizeof *v);
            if (!v) break;
            *out = v;
        }
        if (!((*out)[n] = strdup(line))) break;
        n++;
    }
    free(line);
    fclose(f);
    return n;
}

/* A nested run: hand our dumps to the outer run's manifest too. */
static void cmt_run_pass_up(const char *outer, char **dumps, size_t n) {
    if (!outer || !*outer || !n) return;
    int fd = open(outer, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return;
    for (size_t i = 0; i < n; i++) {
        char line[PATH_MAX + 2];
        int len = snprintf(line, sizeof line, "%s\n", dumps[i]);
        if (len > 0 && (size_t)len < sizeof line && write(fd, line, (size_t)len) != len) break;
    }
    close(fd);
}

/* Waits up to wait_s seconds while processes (orphaned children) are still writing dumps, then names
 * those still running: the summary counts their live memory as live now, not as leaks. */
static void cmt_run_wait_running(char **dumps, size_t n, double wait_s) {
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int said = 0;
    for (;;) {
        size_t running = 0;
        struct cmt_file_header h;
        for (size_t i = 0; i < n; i++)
            running += cmt_dump_read_header(dumps[i], &h) == 0 && cmt_dump_running(&h);
        if (!running) return;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
        if (el >= wait_s) break;
        if (!said) {
            cmt_msg("run: waiting up to %gs for %zu process%s still writing a dump", wait_s, running,
                    running == 1 ? "" : "es");
            said = 1;
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        struct cmt_file_header h;
        if (cmt_dump_read_header(dumps[i], &h) == 0 && cmt_dump_running(&h))
            cmt_msg("run: pid %u is still running and writing %s: its live memory is live now, not a leak", h.pid,
                    dumps[i]);
    }
}

static void cmt_run_summary(char **dumps, size_t n) {
    if (!n) {
        cmt_msg("run: no dump was written (the command made no CUDA allocation calls, the tracer "
                "was disabled, or it could not create its file)");
        return;
    }
    char **present = calloc(n, sizeof *present);
    size_t np = 0;
    cmt_msg("run: %zu dump%s:", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) {
        int ok = cmt_run_is_file(dumps[i]);
        fprintf(stderr, "  %s%s\n", dumps[i], ok ? "" : " (missing: removed after the run?)");
        if (ok && present) present[np++] = dumps[i];
    }
    if (!np) {
        free(present);
        return;
    }
    /* with symbols, as `report`: caching allocators (PyTorch's) are recognised by their frames'
     * names, and what they hold at exit is no leak */
    struct cmt_report_opts ro = {0};
    struct cmt_analysis a;
    char hb[32];
    if (cmt_analysis_load(&a, &ro, present, np) != 0) {
        cmt_msg("run: cannot summarize: %s", a.err);
    } else {
        size_t sites = a.nleaks;
        for (size_t i = 0; i < a.nprocs; i++)
            if (a.procs[i].running)
                cmt_msg("running: pid %u, %s live now (not counted as leaked)", a.procs[i].hdr.pid,
                        cmt_human_size(a.procs[i].live_now_bytes, hb, sizeof hb));
        cmt_msg("leaked: %s (%llu bytes) in %llu allocation%s at %zu site%s",
                cmt_human_size(a.leaked_bytes, hb, sizeof hb), (unsigned long long)a.leaked_bytes,
                (unsigned long long)a.leaked_allocations, a.leaked_allocations == 1 ? "" : "s", sites,
                sites == 1 ? "" : "s");
        if (a.cached_bytes)
            cmt_msg("held by caching allocators at exit: %s (their cache, not counted as leaked)",
                    cmt_human_size(a.cached_bytes, hb, sizeof hb));
        fputs("cumemtrack: peak:", stderr);
        if (!a.ngpus) fputs(" no GPU memory used", stderr);
        for (size_t i = 0; i < a.ngpus; i++) {
            const struct cmt_gpu *g = &a.gpus[i];
            fprintf(stderr, "%s %s %s", i ? ";" : "", g->uuid[0] ? g->uuid : "(unknown GPU)",
                    cmt_human_size(g->peak_bytes, hb, sizeof hb));
        }
        fputc('\n', stderr);
        cmt_msg("OOM: %zu failed allocation%s for lack of memory", a.nooms, a.nooms == 1 ? "" : "s");
        cmt_report_notes(&a);
        fprintf(stderr, "cumemtrack: details: cumemtrack report%s%s\n", np == 1 ? " " : " <the dumps above>",
                np == 1 ? present[0] : "");
    }
    cmt_analysis_free(&a);
    free(present);
}

/* ---------------------------------------------------------------- the dump directory */

/* Creates the directories of the dump template tmpl (absolute) that are missing, mode 0700, and
 * checks that a file can be created in the deepest one; returns 0, or 2 after a message naming the
 * directory. The template is expanded as the tracer does (%h host, %% a percent sign, an unknown
 * %X kept as is) up to the first directory component naming a process (%p, %r): the tracer
 * creates those itself, in the process that writes the dump. */
static int cmt_run_prepare_dir(const char *tmpl) {
    size_t tlen = strlen(tmpl);
    if (tlen && tmpl[tlen - 1] == '/') {
        cmt_msg("run: the dump template %s names a directory, not a file (e.g. %s%%h.%%p.cmt)", tmpl, tmpl);
        return 2;
    }
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    char dir[PATH_MAX];
    size_t at = 0, cut = 0; /* cut: length of dir up to its last '/' */
    int too_long = 0;
    for (const char *t = tmpl; *t && !too_long; t++) {
        const char *piece = t;
        size_t len = 1;
        if (*t == '%' && t[1]) {
            t++;
            if (*t == 'p' || *t == 'r') break;
            if (*t == 'h')
                piece = host, len = strlen(host);
            else if (*t == '%')
                piece = "%";
            else
                piece = t - 1, len = 2;
        }
        if (at + len >= sizeof dir) {
            too_long = 1;
            break;
        }
        memcpy(dir + at, piece, len);
        at += len;
        for (size_t i = at - len; i < at; i++)
            if (dir[i] == '/') cut = i;
    }
    if (too_long) {
        cmt_msg("run: the dump path %s is too long", tmpl);
        return 2;
    }
    if (cut == 0) cut = 1; /* the root directory */
    dir[cut] = 0;
    for (char *q = dir + 1;; q++) { /* mkdir -p, 0700 */
        if (*q != '/' && *q) continue;
        char c = *q;
        *q = 0;
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            cmt_msg("run: cannot create the dump directory %s: %s", dir, strerror(errno));
            return 2;
        }
        *q = c;
        if (!c) break;
    }
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/.cumemtrack-probe.XXXXXX", strcmp(dir, "/") ? dir : "");
    int fd = mkstemp(probe);
    if (fd < 0) {
        cmt_msg("run: cannot write dumps to the directory %s: %s", dir, strerror(errno));
        return 2;
    }
    close(fd);
    unlink(probe);
    return 0;
}

/* --tensors: PyTorch's allocator on the driver's stream-ordered pool (backend:cudaMallocAsync), so
 * that every tensor is one cudaMallocAsync/cudaFreeAsync pair instead of a slice of a cached
 * segment. The variable var ("key:value,key:value") gets the backend appended when no "backend"
 * key is there; an existing backend is the user's choice, left alone with a warning. Says what it
 * did on stderr. Returns 0, or -1 when out of memory. */
static int tensors_env_var(const char *var) {
    static const char want[] = "backend:cudaMallocAsync";
    const char *cur = getenv(var);
    if (cur && *cur) {
        const char *p = cur;
        while (*p) {
            while (*p == ' ' || *p == ',')
                p++;
            const char *k = p;
            while (*p && *p != ':' && *p != ',' && *p != ' ')
                p++;
            if (p - k == 7 && !strncmp(k, "backend", 7)) {
                const char *b = p;
                while (*b == ':' || *b == ' ')
                    b++;
                size_t bl = 0;
                while (b[bl] && b[bl] != ',' && b[bl] != ' ')
                    bl++;
                if (bl == 15 && !strncmp(b, "cudaMallocAsync", 15))
                    cmt_msg("run: --tensors: %s already sets backend:cudaMallocAsync ('%s'): left as it is", var, cur);
                else
                    cmt_msg("run: --tensors: %s already names a backend ('%s'): left as it is; tensor-level stacks "
                            "need backend:cudaMallocAsync",
                            var, cur);
                return 0;
            }
            while (*p && *p != ',')
                p++;
        }
    }
    size_t n = (cur ? strlen(cur) : 0) + sizeof want + 1;
    char *v = malloc(n);
    if (!v) return -1;
    size_t keep = cur ? strlen(cur) : 0;
    while (keep && (cur[keep - 1] == ',' || cur[keep - 1] == ' ')) /* "a:b," + want: one comma */
        keep--;
    if (keep)
        snprintf(v, n, "%.*s,%s", (int)keep, cur, want);
    else
        snprintf(v, n, "%s", want);
    int rc = setenv(var, v, 1);
    if (!rc)
        cmt_msg("run: --tensors: %s=%s for the job (every PyTorch tensor is one cudaMallocAsync/cudaFreeAsync pair; "
                "the driver's pool does the caching)",
                var, v);
    free(v);
    return rc ? -1 : 0;
}

/* PYTORCH_CUDA_ALLOC_CONF always; PYTORCH_ALLOC_CONF (PyTorch's device-generic name, which some
 * releases read before the CUDA one and others after it) too when the job has it set, so that
 * whichever PyTorch reads names the backend. */
static int cmt_run_tensors_env(void) {
    if (tensors_env_var("PYTORCH_CUDA_ALLOC_CONF") != 0) return -1;
    const char *generic = getenv("PYTORCH_ALLOC_CONF");
    return generic && *generic ? tensors_env_var("PYTORCH_ALLOC_CONF") : 0;
}

/* ---------------------------------------------------------------- the command */

int cmt_cmd_run(int argc, char **argv) {
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'},
        {"depth", required_argument, 0, 'd'},
        {"no-children", no_argument, 0, 'n'},
        {"wait", required_argument, 0, 'w'},
        {"tensors", no_argument, 0, 'T'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *tmpl = NULL, *depth = NULL;
    int no_children = 0, tensors = 0, quiet = 0, c;
    double wait_s = 10;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            tmpl = optarg;
            break;
        case 'd': {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || errno || v < 0 || v > (long)CMT_MAX_FRAMES) {
                cmt_msg("run: --depth needs a number from 0 to %u, not '%s'", CMT_MAX_FRAMES, optarg);
                return 2;
            }
            depth = optarg;
            break;
        }
        case 'n':
            no_children = 1;
            break;
        case 'w': {
            char *end;
            errno = 0;
            double v = strtod(optarg, &end);
            if (end == optarg || *end || errno || !(v >= 0) || v > 86400) {
                cmt_msg("run: --wait needs a number of seconds from 0 to 86400, not '%s'", optarg);
                return 2;
            }
            wait_s = v;
            break;
        }
        case 'T':
            tensors = 1;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            fputs(run_help, stdout);
            return 0;
        default:
            cmt_msg("run: unknown or incomplete option '%s'\n%s", argv[optind - 1], run_help);
            return 2;
        }
    }
    if (optind >= argc) {
        cmt_msg("run: no command given\n%s", run_help);
        return 2;
    }
    if (tmpl && !*tmpl) {
        cmt_msg("run: -o needs a non-empty template");
        return 2;
    }
    char **cmd = argv + optind;

    char lib[PATH_MAX];
    if (cmt_run_find_lib(lib, sizeof lib) != 0) return CMT_RUN_EXEC_FAILED;

    /* the dump template, absolute, so children that change directory write next to the others */
    if (!tmpl) {
        const char *e = getenv("CUMEMTRACK_OUTPUT");
        tmpl = e && *e ? e : "cumemtrack.%h.%p.cmt";
    }
    char abs_tmpl[PATH_MAX * 2];
    char cwd[PATH_MAX];
    if (tmpl[0] != '/' && getcwd(cwd, sizeof cwd))
        snprintf(abs_tmpl, sizeof abs_tmpl, "%s/%s", cwd, tmpl);
    else
        snprintf(abs_tmpl, sizeof abs_tmpl, "%s", tmpl);
    if (cmt_run_prepare_dir(abs_tmpl) != 0) return 2;

    /* the private manifest */
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir) tmpdir = "/tmp";
    char manifest[PATH_MAX];
    snprintf(manifest, sizeof manifest, "%s/cumemtrack-run.XXXXXX", tmpdir);
    int mfd = mkstemp(manifest);
    if (mfd < 0) {
        cmt_msg("run: cannot create a manifest file in %s: %m (set TMPDIR)", tmpdir);
        return CMT_RUN_EXEC_FAILED;
    }
    close(mfd);
    char *outer_manifest = getenv("CUMEMTRACK_MANIFEST");
    if (outer_manifest) outer_manifest = strdup(outer_manifest);

    char *preload = cmt_run_ld_preload(lib, cmd[0]);
    if (!preload || setenv("LD_PRELOAD", preload, 1) || setenv("CUMEMTRACK_MANIFEST", manifest, 1) ||
        setenv("CUMEMTRACK_OUTPUT", abs_tmpl, 1) || (depth && setenv("CUMEMTRACK_DEPTH", depth, 1)) ||
        (no_children && setenv("CUMEMTRACK_NO_CHILDREN", "1", 1)) || (tensors && cmt_run_tensors_env() != 0)) {
        cmt_msg("run: out of memory");
        free(preload);
        free(outer_manifest);
        unlink(manifest);
        return CMT_RUN_EXEC_FAILED;
    }
    free(preload);

    /* signals: forward to the child; blocked across the fork so none is lost */
    struct sigaction sa, old_sa[CMT_RUN_NSIG];
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = cmt_run_forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigset_t block, old_mask;
    sigemptyset(&block);
    for (size_t i = 0; i < CMT_RUN_NSIG; i++)
        sigaddset(&block, cmt_run_signals[i]);
    sigprocmask(SIG_BLOCK, &block, &old_mask);
    for (size_t i = 0; i < CMT_RUN_NSIG; i++)
        sigaction(cmt_run_signals[i], &sa, &old_sa[i]);

    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        cmt_msg("run: pipe: %m");
        unlink(manifest);
        free(outer_manifest);
        return CMT_RUN_EXEC_FAILED;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        cmt_msg("run: fork: %m");
        close(pfd[0]);
        close(pfd[1]);
        unlink(manifest);
        free(outer_manifest);
        return CMT_RUN_EXEC_FAILED;
    }
    if (pid == 0) {
        for (size_t i = 0; i < CMT_RUN_NSIG; i++)
            sigaction(cmt_run_signals[i], &old_sa[i], NULL);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        close(pfd[0]);
        execvp(cmd[0], cmd);
        int err = errno;
        ssize_t w = write(pfd[1], &err, sizeof err);
        (void)w;
        _exit(CMT_RUN_EXEC_FAILED);
    }
    cmt_run_child = pid;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    if (cmt_run_pending) kill(pid, cmt_run_pending);
    close(pfd[1]);
    int exec_err = 0;
    ssize_t got;
    do
        got = read(pfd[0], &exec_err, sizeof exec_err);
    while (got < 0 && errno == EINTR);
    close(pfd[0]);

    int status = 0;
    pid_t w;
    do
        w = waitpid(pid, &status, 0);
    while (w < 0 && errno == EINTR);
    cmt_run_child = 0;
    for (size_t i = 0; i < CMT_RUN_NSIG; i++)
        sigaction(cmt_run_signals[i], &old_sa[i], NULL);

    int rc;
    if (got == (ssize_t)sizeof exec_err) {
        cmt_msg("run: cannot execute %s: %s", cmd[0], strerror(exec_err));
        rc = CMT_RUN_EXEC_FAILED;
    } else if (w < 0) {
        cmt_msg("run: waitpid: %m");
        rc = CMT_RUN_EXEC_FAILED;
    } else if (WIFSIGNALED(status)) {
        rc = 128 + WTERMSIG(status);
        cmt_msg("run: %s was killed by signal %d (%s)", cmd[0], WTERMSIG(status), strsignal(WTERMSIG(status)));
    } else {
        rc = WEXITSTATUS(status);
    }

    char **dumps;
    size_t n = cmt_run_read_manifest(manifest, &dumps);
    unlink(manifest);
    if (n) cmt_run_wait_running(dumps, n, wait_s);
    if (!quiet && (got != (ssize_t)sizeof exec_err || n)) cmt_run_summary(dumps, n);
    cmt_run_pass_up(outer_manifest, dumps, n);
    for (size_t i = 0; i < n; i++)
        free(dumps[i]);
    free(dumps);
    free(outer_manifest);
    return rc;
}

/* test_interleave.c — reads a dump with the analyzer's reader and prints every STACK's frames as
 * cmt_stack_frames interleaves them (the one interleaving every renderer uses), one stack a line:
 *   ID: FRAME <- FRAME ...   with native frames as 0xADDR (eval-loop frames kept with keep_eval
 *   print as [0xADDR]) and Python frames as NAME:LINE. Usage: test_interleave DUMP KEEP_EVAL */
#include <stdio.h>
#include <stdlib.h>

#include "reader.h"

int main(int argc, char **argv) {
    char err[512];
    if (argc != 3) return 2;
    struct cmt_dump *d = cmt_dump_open(argv[1], err, sizeof err);
    if (!d) {
        fprintf(stderr, "%s\n", err);
        return 3;
    }
    const struct cmt_event *e;
    int rc;
    while ((rc = cmt_dump_next(d, &e)) > 0) {
        if (e->type != CMT_REC_STACK) continue;
        struct cmt_frame f[2 * CMT_MAX_FRAMES];
        size_t n = cmt_stack_frames(e, f, sizeof f / sizeof *f, atoi(argv[2]));
        printf("%llu:", (unsigned long long)e->id);
        for (size_t i = 0; i < n; i++) {
            const struct cmt_pycode *pc =
                f[i].kind == CMT_FRAME_PYTHON ? cmt_dump_pycode(d, f[i].code) : NULL;
            printf(i ? " <- " : " ");
            if (f[i].kind == CMT_FRAME_NATIVE)
                printf(f[i].eval ? "[0x%llx]" : "0x%llx", (unsigned long long)f[i].addr);
            else if (pc)
                printf("%.*s:%llu", (int)pc->name_len, pc->name, (unsigned long long)f[i].line);
            else
                printf("?%llu:%llu", (unsigned long long)f[i].code, (unsigned long long)f[i].line);
        }
        printf("\n");
    }
    cmt_dump_close(d);
    return rc < 0 ? 1 : 0;
}

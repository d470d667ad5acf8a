/*
 * cmt_graph.c — see cmt_graph.h. Graph calls are rare: one mutex, uthash tables.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cmt_graph.h"
#include "cmt_init.h"
#include "cmt_writer.h"

#define HASH_NONFATAL_OOM 1
static int graph_oom;
#define uthash_nonfatal_oom(obj) (graph_oom = 1)
#include <uthash.h>

struct gset {
    UT_hash_handle hh;
    uint64_t key;
    struct cmt_gnode *nodes;
    int n, cap;
    unsigned long long flags; /* executables */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct gset *graphs, *captures, *execs;

static struct gset *get(struct gset **tab, uint64_t key, bool create) {
    struct gset *s;
    HASH_FIND(hh, *tab, &key, sizeof key, s);
    if (s || !create) return s;
    s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->key = key;
    graph_oom = 0;
    HASH_ADD(hh, *tab, key, sizeof s->key, s);
    if (graph_oom) {
        free(s);
        return NULL;
    }
    return s;
}

static void drop(struct gset **tab, struct gset *s) {
    HASH_DEL(*tab, s);
    free(s->nodes);
    free(s);
}

static bool push(struct gset *s, const struct cmt_gnode *n) {
    if (s->n == s->cap) {
        int nc = s->cap ? s->cap * 2 : 8;
        struct cmt_gnode *p = realloc(s->nodes, (size_t)nc * sizeof *p);
        if (!p) return false;
        s->nodes = p;
        s->cap = nc;
    }
    s->nodes[s->n++] = *n;
    return true;
}

void cmt_graph_add(uint64_t key, bool captured, const struct cmt_gnode *n) {
    pthread_mutex_lock(&lock);
    struct gset *s = get(captured ? &captures : &graphs, key, true);
    if (!s || !push(s, n)) cmt_counter_add(CMT_CTR_TABLE_FULL, 1);
    pthread_mutex_unlock(&lock);
}

/* Appends src's nodes to dst (under lock); nodes that do not fit are counted. */
static void copy_nodes(struct gset *dst, const struct gset *src) {
    for (int i = 0; dst && src && i < src->n; i++)
        if (!push(dst, &src->nodes[i])) cmt_counter_add(CMT_CTR_TABLE_FULL, 1);
}

static void forget(struct gset **table, uint64_t key) {
    pthread_mutex_lock(&lock);
    struct gset *g = get(table, key, false);
    if (g) drop(table, g);
    pthread_mutex_unlock(&lock);
}

void cmt_graph_capture_end(uint64_t stream, uint64_t graph) {
    pthread_mutex_lock(&lock);
    struct gset *c = get(&captures, stream, false);
    if (c) {
        copy_nodes(get(&graphs, graph, true), c);
        drop(&captures, c);
    }
    pthread_mutex_unlock(&lock);
}

void cmt_graph_destroy(uint64_t graph) { forget(&graphs, graph); }

void cmt_graph_instantiate(uint64_t exec, uint64_t graph, unsigned long long flags) {
    pthread_mutex_lock(&lock);
    struct gset *g = get(&graphs, graph, false);
    struct gset *e = get(&execs, exec, true);
    if (e) {
        e->n = 0;
        e->flags = flags;
        copy_nodes(e, g);
    }
    pthread_mutex_unlock(&lock);
}

void cmt_graph_exec_destroy(uint64_t exec) { forget(&execs, exec); }

struct cmt_gnode *cmt_graph_exec_nodes(uint64_t exec, int *n, unsigned long long *flags) {
    struct cmt_gnode *out = NULL;
    *n = 0;
    pthread_mutex_lock(&lock);
    struct gset *e = get(&execs, exec, false);
    if (e && e->n && (out = malloc((size_t)e->n * sizeof *out))) {
        memcpy(out, e->nodes, (size_t)e->n * sizeof *out);
        *n = e->n;
        *flags = e->flags;
    }
    pthread_mutex_unlock(&lock);
    return out;
}

void cmt_graph_fork_child(void) {
    pthread_mutex_init(&lock, NULL);
    graphs = captures = execs = NULL; /* abandoned: the parent's */
}
CMT_LIFECYCLE(graph, 80, NULL, cmt_graph_fork_child);

/*
 * cmt_graph.h — what the tracker knows of CUDA graphs: the memory nodes of each graph (made with
 * cuGraphAddMemAllocNode / cuGraphAddMemFreeNode, or captured from stream-ordered calls on a
 * capturing stream until cuStreamEndCapture names the graph), and a copy of them per executable
 * (cuGraphInstantiate*). A data module: cmt_events.c records what a launch does.
 */
#ifndef CMT_GRAPH_H
#define CMT_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

struct cmt_gnode {
    uint64_t ptr, size; /* free node: size 0 */
    uint32_t stack;
    int device;
    bool is_free;
};

/* Adds a node to a graph (key: the CUgraph) or to a stream's capture in progress (key: the
 * CUstream, captured = true). */
void cmt_graph_add(uint64_t key, bool captured, const struct cmt_gnode *n);
/* The capture on stream ended as graph: its nodes become the graph's. */
void cmt_graph_capture_end(uint64_t stream, uint64_t graph);
void cmt_graph_destroy(uint64_t graph);
/* Copies graph's nodes to a new executable. */
void cmt_graph_instantiate(uint64_t exec, uint64_t graph, unsigned long long flags);
void cmt_graph_exec_destroy(uint64_t exec);
/* The nodes of exec (malloc'd array, *n of them; caller frees) and its flags; NULL if unknown. */
struct cmt_gnode *cmt_graph_exec_nodes(uint64_t exec, int *n, unsigned long long *flags);
void cmt_graph_fork_child(void);

#endif

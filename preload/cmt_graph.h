/*
 * cmt_graph.h — what the tracker knows of CUDA graphs: the stack of each memory alloc node (made
 * with cuGraphAddMemAllocNode / cuGraphAddNode, or captured from a stream-ordered allocation), and
 * per executable (cuGraphInstantiate*) the memory operations a launch performs, in the order it
 * performs them. That order is read from the driver when the graph is instantiated: its nodes and
 * edges (cuGraphGetNodes / cuGraphGetEdges, child graphs in place of their node), so a capture's
 * nodes come from every stream that joined it and every node type orders memory nodes. A data
 * module: cmt_events.c records what a launch does.
 */
#ifndef CMT_GRAPH_H
#define CMT_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

/* One memory operation of a launch. */
struct cmt_gnode {
    uint64_t ptr, size; /* free node: size 0 */
    uint32_t stack;
    int device;
    bool is_free;
};

/* An alloc node was made (node: its CUgraphNode, 0 when unknown; graph: its CUgraph, 0 when
 * unknown): remembers the stack of its creation. */
void cmt_graph_node_made(uint64_t node, uint64_t graph, uint64_t ptr, uint32_t stack);
/* The graph was destroyed: its nodes' stacks are forgotten. */
void cmt_graph_destroy(uint64_t graph);
/* exec was instantiated from graph: reads the graph's memory nodes from the driver and keeps them
 * in a topological order of the edges (where the edges leave nodes unordered: ready alloc nodes
 * first, then other nodes, then free nodes). */
void cmt_graph_instantiate(uint64_t exec, uint64_t graph, unsigned long long flags);
void cmt_graph_exec_destroy(uint64_t exec);
/* The operations of exec in order (malloc'd array, *n of them; caller frees) and its flags; NULL
 * if unknown or none. */
struct cmt_gnode *cmt_graph_exec_nodes(uint64_t exec, int *n, unsigned long long *flags);
void cmt_graph_fork_child(void);

#endif

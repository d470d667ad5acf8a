/*
 * cmt_vmm.h — virtual memory management semantics: physical allocations (cuMemCreate handles)
 * live until every handle reference is released (cuMemRetainAllocationHandle adds one) AND every
 * mapping of them is unmapped (one cuMemUnmap may span several). Tracked apart from the pointer
 * table; the ALLOC/FREE records use the VMM key space (ptr = handle).
 */
#ifndef CMT_VMM_H
#define CMT_VMM_H

#include <stdint.h>

#include "cmt_internal.h"

void cmt_vmm_created(struct cmt_call *c, uint64_t handle, uint32_t stack);
/* cuMemImportFromShareableHandle: another process's memory; recorded (kind imported) at its first
 * mapping, whose size it takes (the handle's own size is not known to the importer). */
void cmt_vmm_imported(struct cmt_call *c, uint64_t handle, uint32_t stack);
void cmt_vmm_release_pre(struct cmt_call *c);
void cmt_vmm_release_post(struct cmt_call *c, CUresult r);
void cmt_vmm_mapped(struct cmt_call *c);
void cmt_vmm_unmap_pre(struct cmt_call *c);
void cmt_vmm_unmap_post(struct cmt_call *c, CUresult r);
void cmt_vmm_retained(struct cmt_call *c, uint64_t handle);
void cmt_vmm_fork_child(void);

#endif

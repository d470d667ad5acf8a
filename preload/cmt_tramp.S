/*
 * cmt_tramp.S — dlsym and dlopen entry points that keep the caller's identity.
 *
 * glibc resolves RTLD_NEXT (dlsym) and the RUNPATH/$ORIGIN search (dlopen) from the return
 * address of the call, so pass-through calls must reach the real function as a tail jump with the
 * caller's return address still on the stack. gcc 12 cannot guarantee a C tail call, hence this.
 *
 * dlsym:  r = cmt_dlsym_pre(handle, name, caller); if r return r; else jmp *cmt_real_dlsym
 *         (caller: our return address, which names the object RTLD_NEXT is relative to)
 * dlopen: mode = cmt_dlopen_pre(file, mode); jmp *cmt_real_dlopen
 * (the pre functions also resolve the real pointers before they are used)
 */
/* Keep the first two arguments across the call to the pre-hook (16-byte stack alignment kept). */
    .macro SAVE_ARGS
    push %rdi
    .cfi_adjust_cfa_offset 8
    push %rsi
    .cfi_adjust_cfa_offset 8
    sub $8, %rsp
    .cfi_adjust_cfa_offset 8
    .endm
    .macro RESTORE_ARGS
    add $8, %rsp
    .cfi_adjust_cfa_offset -8
    pop %rsi
    .cfi_adjust_cfa_offset -8
    pop %rdi
    .cfi_adjust_cfa_offset -8
    .endm

    .text
    .globl dlsym
    .type dlsym, @function
dlsym:
    .cfi_startproc
    endbr64
    SAVE_ARGS
    mov 24(%rsp), %rdx
    call cmt_dlsym_pre
    RESTORE_ARGS
    test %rax, %rax
    jz 1f
    ret
1:
    jmp *cmt_real_dlsym(%rip)
    .cfi_endproc
    .size dlsym, .-dlsym

    .globl dlopen
    .type dlopen, @function
dlopen:
    .cfi_startproc
    endbr64
    SAVE_ARGS
    call cmt_dlopen_pre
    RESTORE_ARGS
    mov %eax, %esi
    jmp *cmt_real_dlopen(%rip)
    .cfi_endproc
    .size dlopen, .-dlopen

    .section .note.GNU-stack,"",@progbits

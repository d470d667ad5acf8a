/* libnext_private.c — reachable only through libnext_b's RUNPATH. */
int cmt_private_fn(void) { return 42; }

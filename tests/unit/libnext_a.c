/* libnext_a.c — second definition of cmt_test_fn, found through dlsym(RTLD_NEXT) from libnext_b. */
int cmt_test_fn(void) { return 1; }

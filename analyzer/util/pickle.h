/*
 * pickle.h — a streaming writer of Python pickles (protocol 2), only the types the exports need:
 * dict, list, tuple, str, int, bool, None. Values go straight to a FILE as they are written
 * (nothing is built in memory): containers are opened and closed around their items, items are
 * handed to the reader in batches of 1000 (APPENDS / SETITEMS, as Python's own pickler does, so a
 * reader that spreads a batch into a call never meets millions of arguments). Strings are
 * memoized by content (the second "filename" key or function name is a 2- or 5-byte reference),
 * and any value can be memoized by the caller and referenced again (a stack's frame list written
 * once). Strings that are not valid UTF-8 are written with U+FFFD in place of each bad byte, so
 * every reader decodes them.
 */
#ifndef CMT_PICKLE_H
#define CMT_PICKLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cmt_pickle;

/* Starts a pickle on f (the protocol header); NULL when out of memory. Then exactly one value
 * (usually a dict) follows, then cmt_pk_end. */
struct cmt_pickle *cmt_pk_new(FILE *f);
/* Ends the pickle (STOP) and frees p: 0, or -1 when a container was left open or the writer ran
 * out of memory (the file is then incomplete). Write errors are the FILE's (ferror). */
int cmt_pk_end(struct cmt_pickle *p);

/* Containers: a dict takes key, value, key, value ... (keys written as values, usually
 * cmt_pk_str); begin and end calls nest. */
void cmt_pk_dict(struct cmt_pickle *p);
void cmt_pk_list(struct cmt_pickle *p);
void cmt_pk_tuple(struct cmt_pickle *p);
void cmt_pk_close(struct cmt_pickle *p); /* closes the innermost open container */

void cmt_pk_int(struct cmt_pickle *p, int64_t v);
void cmt_pk_uint(struct cmt_pickle *p, uint64_t v);
void cmt_pk_bool(struct cmt_pickle *p, int v);
void cmt_pk_none(struct cmt_pickle *p);
/* A str of n bytes (UTF-8; invalid bytes become U+FFFD); memoized by content. */
void cmt_pk_strn(struct cmt_pickle *p, const char *s, size_t n);
void cmt_pk_str(struct cmt_pickle *p, const char *s); /* NUL-terminated; NULL writes None */
/* cmt_pk_str(key) then the value: the usual dict entry. */
void cmt_pk_key_str(struct cmt_pickle *p, const char *key, const char *value);
void cmt_pk_key_uint(struct cmt_pickle *p, const char *key, uint64_t value);
void cmt_pk_key_int(struct cmt_pickle *p, const char *key, int64_t value);

/* Memoizes the container just opened: call it right after cmt_pk_list / cmt_pk_dict, before its
 * first item (the reader's top of stack is that container only then). Returns its handle. */
uint32_t cmt_pk_memoize(struct cmt_pickle *p);
/* Writes the value memoized as handle again (the same object for the reader). */
void cmt_pk_memo_get(struct cmt_pickle *p, uint32_t handle);

#endif

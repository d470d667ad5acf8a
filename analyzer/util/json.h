/*
 * json.h — a small streaming JSON writer: objects and arrays nest, commas and indentation are
 * handled here, strings are escaped (control characters as \u00XX, invalid UTF-8 bytes replaced by
 * U+FFFD). Every value call takes a key: pass NULL inside arrays and at the top level.
 */
#ifndef CMT_JSON_H
#define CMT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CMT_JSON_MAX_DEPTH 64

struct cmt_json {
    FILE *f;
    int pretty, depth;
    unsigned char count[CMT_JSON_MAX_DEPTH]; /* values written at each depth (saturating) */
};

void cmt_json_init(struct cmt_json *j, FILE *f, int pretty);
void cmt_json_object(struct cmt_json *j, const char *key);
void cmt_json_object_end(struct cmt_json *j);
void cmt_json_array(struct cmt_json *j, const char *key);
void cmt_json_array_end(struct cmt_json *j);
void cmt_json_str(struct cmt_json *j, const char *key, const char *s); /* NULL: null */
void cmt_json_strn(struct cmt_json *j, const char *key, const char *s, size_t n);
void cmt_json_u64(struct cmt_json *j, const char *key, uint64_t v);
void cmt_json_i64(struct cmt_json *j, const char *key, int64_t v);
void cmt_json_double(struct cmt_json *j, const char *key, double v); /* non-finite: null */
void cmt_json_bool(struct cmt_json *j, const char *key, int v);
void cmt_json_null(struct cmt_json *j, const char *key);
/* Ends the document (a newline). */
void cmt_json_finish(struct cmt_json *j);

#endif

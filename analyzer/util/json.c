/*
 * json.c — streaming JSON writer. See json.h.
 */
#include "json.h"

#include <math.h>
#include <string.h>

void cmt_json_init(struct cmt_json *j, FILE *f, int pretty) {
    memset(j, 0, sizeof *j);
    j->f = f;
    j->pretty = pretty;
}

static void put_escaped(FILE *f, const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    fputc('"', f);
    while (p < end) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc((int)c, f);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            switch (c) {
            case '\n':
                fputs("\\n", f);
                break;
            case '\t':
                fputs("\\t", f);
                break;
            case '\r':
                fputs("\\r", f);
                break;
            case '\b':
                fputs("\\b", f);
                break;
            case '\f':
                fputs("\\f", f);
                break;
            default:
                fprintf(f, "\\u%04x", c);
            }
            p++;
        } else if (c < 0x80) {
            fputc((int)c, f);
            p++;
        } else { /* validate one UTF-8 sequence */
            size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
            int ok = len && (size_t)(end - p) >= len;
            for (size_t i = 1; ok && i < len; i++)
                ok = (p[i] & 0xc0) == 0x80;
            if (ok && len == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))) ok = 0;
            if (ok && len == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))) ok = 0;
            if (ok) {
                fwrite(p, 1, len, f);
                p += len;
            } else {
                fputs("\\ufffd", f);
                p++;
            }
        }
    }
    fputc('"', f);
}

static void indent(struct cmt_json *j) {
    if (!j->pretty) return;
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->f);
}

static void prefix(struct cmt_json *j, const char *key) {
    if (j->depth > 0) {
        if (j->count[j->depth]) fputc(',', j->f);
        indent(j);
    }
    if (j->count[j->depth] < 255) j->count[j->depth]++;
    if (key) {
        put_escaped(j->f, key, strlen(key));
        fputs(j->pretty ? ": " : ":", j->f);
    }
}

static void open_(struct cmt_json *j, const char *key, char c) {
    prefix(j, key);
    fputc(c, j->f);
    if (j->depth < CMT_JSON_MAX_DEPTH - 1) j->depth++;
    j->count[j->depth] = 0;
}

static void close_(struct cmt_json *j, char c) {
    int empty = !j->count[j->depth];
    if (j->depth > 0) j->depth--;
    if (!empty) indent(j);
    fputc(c, j->f);
}

void cmt_json_object(struct cmt_json *j, const char *key) {
    open_(j, key, '{');
}
void cmt_json_object_end(struct cmt_json *j) {
    close_(j, '}');
}
void cmt_json_array(struct cmt_json *j, const char *key) {
    open_(j, key, '[');
}
void cmt_json_array_end(struct cmt_json *j) {
    close_(j, ']');
}

void cmt_json_strn(struct cmt_json *j, const char *key, const char *s, size_t n) {
    prefix(j, key);
    if (s)
        put_escaped(j->f, s, n);
    else
        fputs("null", j->f);
}
void cmt_json_str(struct cmt_json *j, const char *key, const char *s) {
    cmt_json_strn(j, key, s, s ? strlen(s) : 0);
}
void cmt_json_u64(struct cmt_json *j, const char *key, uint64_t v) {
    prefix(j, key);
    fprintf(j->f, "%llu", (unsigned long long)v);
}
void cmt_json_i64(struct cmt_json *j, const char *key, int64_t v) {
    prefix(j, key);
    fprintf(j->f, "%lld", (long long)v);
}
void cmt_json_double(struct cmt_json *j, const char *key, double v) {
    prefix(j, key);
    if (isfinite(v))
        fprintf(j->f, "%.10g", v); /* ratios and rates: 10 significant digits */
    else
        fputs("null", j->f);
}
void cmt_json_bool(struct cmt_json *j, const char *key, int v) {
    prefix(j, key);
    fputs(v ? "true" : "false", j->f);
}
void cmt_json_null(struct cmt_json *j, const char *key) {
    prefix(j, key);
    fputs("null", j->f);
}
void cmt_json_finish(struct cmt_json *j) {
    fputc('\n', j->f);
}

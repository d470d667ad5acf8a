/*
 * util.h — the bottom of the analyzer (util -> reader -> replay -> analysis -> render -> cmd ->
 * main): sizes, GPU UUIDs.
 */
#ifndef CMT_UTIL_H
#define CMT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Human-readable size ("1.5 MiB") into buf. */
const char *cmt_human_size(uint64_t bytes, char *buf, size_t cap);
/* Parses "123", "4K", "10MiB", "1G"...; returns 0 or -1. */
int cmt_parse_size(const char *s, uint64_t *out);
/* Formats a 16-byte uuid as "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (buf >= 41 bytes). */
void cmt_uuid_format(const uint8_t uuid[16], char *buf);

#endif

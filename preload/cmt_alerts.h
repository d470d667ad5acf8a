/*
 * cmt_alerts.h — threshold alerts (CUMEMTRACK_ALERT): live device bytes are counted only when
 * alerts are configured, so they cost nothing otherwise.
 */
#ifndef CMT_ALERTS_H
#define CMT_ALERTS_H

#include <stdbool.h>
#include <stdint.h>

void cmt_alerts_init(void);
extern bool cmt_alerts_on;
void cmt_live_count(int device, int64_t delta, const void *caller);
/* Live device bytes changed by delta (alerts only: the check is inline); caller: a return address
 * for the message. */
static inline void cmt_live_add(int device, int64_t delta, const void *caller) {
    if (__builtin_expect(cmt_alerts_on, 0)) cmt_live_count(device, delta, caller);
}
/* Remembers a device's identity for alert messages and percentage thresholds. */
void cmt_alerts_device(int ordinal, uint64_t total, const uint8_t uuid[16]);

#endif

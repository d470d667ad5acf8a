/*
 * cmt_signals.h — ways for the job to speak while it runs: threshold alerts (CUMEMTRACK_ALERT),
 * markers (cmt_mark, an opt-in signal CUMEMTRACK_MARK_SIGNAL, NVTX ranges and marks). Live bytes
 * per device are only counted when alerts are configured, so they cost nothing otherwise.
 */
#ifndef CMT_SIGNALS_H
#define CMT_SIGNALS_H

#include <stdbool.h>
#include <stdint.h>

void cmt_signals_init(void);
/* Live device bytes changed by delta (alerts only); caller: a return address for the message. */
void cmt_live_add(int device, int64_t delta, const void *caller);
/* Remembers a device's identity for alert messages and percentage thresholds. */
void cmt_signals_device(int ordinal, uint64_t total, const uint8_t uuid[16]);
/* Records a marker (label, enum cmt_marker_flags, domain). */
void cmt_marker(const char *label, unsigned flags, const char *domain);
/* Emits markers requested by the signal while this thread could not write. */
void cmt_signals_pending(void);
extern bool cmt_alerts_on;

#endif

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef PT_WIRE_H
#define PT_WIRE_H

/*
 * perftest's out-of-band messages (Debian's perftest 4.5+0.17, its
 * internal version 6.06), as vrdma-perf --perftest reads and writes them;
 * doc/vrdma-perf.md says where each fact comes from. Every message from
 * the peer is untrusted: the readers take exact layouts and set nothing
 * on a refusal.
 */

#include <stddef.h>
#include <stdint.h>

/* The version message: a NUL-terminated string in 16 bytes ("6.06"). */
#define PT_VERSION_LEN 16
/* The lowest peer version perftest 4.5 works with (check_version_compatibility), x 100. */
#define PT_VERSION_MIN 570
/* The path MTU message: the ibv_mtu code (1..5) in decimal and a NUL. */
#define PT_MTU_LEN 2
/* The connection data with a GID (KEY_PRINT_FMT_GID) and its NUL. */
#define PT_KEY_LEN 108
/* The bandwidth report: size, iterations (8 bytes each), peak, average, message rate. */
#define PT_REPORT_LEN 40

/** One QP's connection data, in the order of perftest's message. */
struct pt_dest {
	uint32_t lid;        /**< 16 bits; 0 on RoCE */
	uint32_t out_reads;  /**< 16 bits: outstanding READs / atomics the sender takes */
	uint32_t qpn;        /**< 24 bits */
	uint32_t psn;        /**< 24 bits: the sender's first send PSN */
	uint32_t rkey;
	uint64_t vaddr;      /**< the sender's buffer, for WRITE / READ / atomics */
	uint8_t gid[16];
	uint32_t srqn;       /**< XRC / DC only; 0 */
};

/** A side's bandwidth report as perftest exchanges it. */
struct pt_report {
	uint64_t size, iters;
	double bw_peak, bw_avg, msg_rate; /**< MB/s (2^20 bytes), MB/s, Mpps */
};

/** Our version message ("6.06", NUL-padded). */
void pt_version_format(char msg[PT_VERSION_LEN]);
/** @return the peer's version x 100 (5.7 and 5.70: 570), or -1 if not "D+[.D+]" + NUL. */
int pt_version_parse(const char *msg, size_t len);

void pt_mtu_format(char msg[PT_MTU_LEN], uint8_t mtu_code);
/** @return the MTU code 1..5 (256..4096), or -1. */
int pt_mtu_parse(const char *msg, size_t len);

void pt_dest_format(char msg[PT_KEY_LEN], const struct pt_dest *d);
/**
 * Parse a peer's connection data: exactly the layout perftest prints
 * ("%04x:%04x:%06x:%06x:%08x:%016llx:", 16 "%02x:", "%08x:", NUL).
 * @return 0 with @p d set, or -1 (nothing set).
 */
int pt_dest_parse(const char *msg, size_t len, struct pt_dest *d);

void pt_report_format(uint8_t msg[PT_REPORT_LEN], const struct pt_report *r);
/** @return 0 with @p r set (every value taken as it is), or -1 when @p len is wrong. */
int pt_report_parse(const uint8_t *msg, size_t len, struct pt_report *r);

#endif /* PT_WIRE_H */

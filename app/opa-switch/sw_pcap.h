/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef SW_PCAP_H
#define SW_PCAP_H

/*
 * opa-switch --pcap: every packet the switch takes in, as received, in a
 * pcap file of linktype 147 (USER0), the one opa16b-pcap and its tshark
 * dissector (app/opa16b-pcap/opa16b.lua) read: the fabric's wire as a
 * capture, SC, DLID, vesw id and the Ethernet frame inside included.
 */

#include <stdbool.h>

#include <rte_mbuf.h>

/* Open PATH for writing (truncated). 0, or -1 having said why on stderr. */
int sw_pcap_open(const char *path);
/* Append one packet (its chain read whole, at most 16384 bytes kept). */
void sw_pcap_write(const struct rte_mbuf *m);
/* Flush and close; the packets written and those that could not be. */
void sw_pcap_close(uint64_t *written, uint64_t *failed);

#endif /* SW_PCAP_H */

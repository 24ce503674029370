/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* opa-switch --pcap: the packets the switch takes in, to a pcap file. */

#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include <pcap/pcap.h>

#include "sw_pcap.h"

/* OPA 16B as opa16b-pcap writes it: DLT_USER0 */
#define SW_PCAP_LINKTYPE 147
/* the largest 16B packet (10240 B MTU + headers) fits */
#define SW_PCAP_SNAPLEN 16384

static pcap_t *dead;
static pcap_dumper_t *dumper;
static uint64_t nb_written, nb_failed;
static uint8_t buf[SW_PCAP_SNAPLEN];

int
sw_pcap_open(const char *path)
{
	dead = pcap_open_dead(SW_PCAP_LINKTYPE, SW_PCAP_SNAPLEN);
	if (dead == NULL) {
		fprintf(stderr, "opa-switch: --pcap: no memory\n");
		return -1;
	}
	dumper = pcap_dump_open(dead, path);
	if (dumper == NULL) {
		fprintf(stderr, "opa-switch: --pcap %s: %s\n", path, pcap_geterr(dead));
		pcap_close(dead);
		dead = NULL;
		return -1;
	}
	return 0;
}

void
sw_pcap_write(const struct rte_mbuf *m)
{
	struct pcap_pkthdr h;
	uint32_t len = RTE_MIN(m->pkt_len, (uint32_t)SW_PCAP_SNAPLEN);
	const void *data;

	if (dumper == NULL)
		return;
	data = rte_pktmbuf_read(m, 0, len, buf);
	if (data == NULL) {
		nb_failed++;
		return;
	}
	gettimeofday(&h.ts, NULL);
	h.caplen = len;
	h.len = m->pkt_len;
	pcap_dump((u_char *)dumper, &h, data);
	nb_written++;
}

void
sw_pcap_close(uint64_t *written, uint64_t *failed)
{
	*written = nb_written;
	*failed = nb_failed;
	if (dumper == NULL)
		return;
	if (pcap_dump_flush(dumper) != 0)
		nb_failed++;
	pcap_dump_close(dumper);
	pcap_close(dead);
	dumper = NULL;
	dead = NULL;
	*failed = nb_failed;
}

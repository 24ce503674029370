/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* perftest's out-of-band messages (see pt_wire.h, doc/vrdma-perf.md). */

#include <stdio.h>
#include <string.h>

#include <omni_bytes.h>
#include <omni_num.h>
#include "pt_wire.h"

/* the version perftest 4.5+0.17 itself sends (its configure.ac AC_INIT) */
#define PT_VERSION "6.06"

void
pt_version_format(char msg[PT_VERSION_LEN])
{
	memset(msg, 0, PT_VERSION_LEN);
	memcpy(msg, PT_VERSION, sizeof(PT_VERSION));
}

int
pt_version_parse(const char *msg, size_t len)
{
	unsigned int major = 0, frac = 0, k = 0, nfrac = 0, nmajor = 0;

	if (len != PT_VERSION_LEN)
		return -1;
	for (; k < len && msg[k] >= '0' && msg[k] <= '9' && nmajor < 4; k++, nmajor++)
		major = major * 10 + (unsigned int)(msg[k] - '0');
	if (nmajor == 0 || k == len)
		return -1;
	if (msg[k] == '.') {
		for (k++; k < len && msg[k] >= '0' && msg[k] <= '9'; k++, nfrac++)
			if (nfrac < 2)
				frac = frac * 10 + (unsigned int)(msg[k] - '0');
		if (nfrac == 0 || k == len)
			return -1;
		if (nfrac == 1)
			frac *= 10;
	}
	if (msg[k] != '\0')
		return -1;
	return (int)(major * 100 + frac);
}

void
pt_mtu_format(char msg[PT_MTU_LEN], uint8_t mtu_code)
{
	msg[0] = (char)('0' + mtu_code);
	msg[1] = '\0';
}

int
pt_mtu_parse(const char *msg, size_t len)
{
	if (len != PT_MTU_LEN || msg[0] < '1' || msg[0] > '5' || msg[1] != '\0')
		return -1;
	return msg[0] - '0';
}

void
pt_dest_format(char msg[PT_KEY_LEN], const struct pt_dest *d)
{
	int n = snprintf(msg, PT_KEY_LEN, "%04x:%04x:%06x:%06x:%08x:%016llx:",
			 d->lid & 0xffff, d->out_reads & 0xffff, d->qpn & 0xffffff,
			 d->psn & 0xffffff, d->rkey, (unsigned long long)d->vaddr);
	unsigned int k;

	for (k = 0; k < 16; k++)
		n += snprintf(msg + n, PT_KEY_LEN - (size_t)n, "%02x:", d->gid[k]);
	snprintf(msg + n, PT_KEY_LEN - (size_t)n, "%08x:", d->srqn);
}

/* @p n hex digits at @p s, then a ':' (no sign, no 0x, no short field). */
static int
field(const char *s, unsigned int n, uint64_t max, uint64_t *v)
{
	if (s[n] != ':')
		return -1;
	return omni_parse_uint_n(s, n, 0, max, OMNI_NUM_HEX_BARE, v);
}

int
pt_dest_parse(const char *msg, size_t len, struct pt_dest *d)
{
	uint64_t lid, reads, qpn, psn, rkey, vaddr, srqn, byte;
	uint8_t gid[16];
	unsigned int k;

	if (len != PT_KEY_LEN || msg[len - 1] != '\0')
		return -1;
	if (field(msg, 4, 0xffff, &lid) != 0 || field(msg + 5, 4, 0xffff, &reads) != 0 ||
	    field(msg + 10, 6, 0xffffff, &qpn) != 0 || field(msg + 17, 6, 0xffffff, &psn) != 0 ||
	    field(msg + 24, 8, UINT32_MAX, &rkey) != 0 ||
	    field(msg + 33, 16, UINT64_MAX, &vaddr) != 0)
		return -1;
	for (k = 0; k < 16; k++) {
		if (field(msg + 50 + 3 * k, 2, 0xff, &byte) != 0)
			return -1;
		gid[k] = (uint8_t)byte;
	}
	if (field(msg + 98, 8, UINT32_MAX, &srqn) != 0)
		return -1;
	d->lid = (uint32_t)lid;
	d->out_reads = (uint32_t)reads;
	d->qpn = (uint32_t)qpn;
	d->psn = (uint32_t)psn;
	d->rkey = (uint32_t)rkey;
	d->vaddr = vaddr;
	memcpy(d->gid, gid, sizeof(gid));
	d->srqn = (uint32_t)srqn;
	return 0;
}

/* doubles travel as their 8 bytes in network order (perftest's hton_double) */
static void
put_double(uint8_t *p, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	omni_put_be64(p, bits);
}

static double
get_double(const uint8_t *p)
{
	uint64_t bits = omni_get_be64(p);
	double v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

void
pt_report_format(uint8_t msg[PT_REPORT_LEN], const struct pt_report *r)
{
	omni_put_be64(msg, r->size);
	omni_put_be64(msg + 8, r->iters);
	put_double(msg + 16, r->bw_peak);
	put_double(msg + 24, r->bw_avg);
	put_double(msg + 32, r->msg_rate);
}

int
pt_report_parse(const uint8_t *msg, size_t len, struct pt_report *r)
{
	if (len != PT_REPORT_LEN)
		return -1;
	r->size = omni_get_be64(msg);
	r->iters = omni_get_be64(msg + 8);
	r->bw_peak = get_double(msg + 16);
	r->bw_avg = get_double(msg + 24);
	r->msg_rate = get_double(msg + 32);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * opa16b-pcap: convert between Ethernet captures (linktype 1) and OPA 16B
 * VNIC captures (linktype 147, USER0) with lib/opa16b.
 *
 *   opa16b-pcap encap [--slid N] [--dlid N] [--pkey N] [--sc N] [--rc N]
 *                     [--entropy N] [--vesw N] IN.pcap OUT.pcap
 *   opa16b-pcap decap [--mtu N] IN.pcap OUT.pcap
 *
 * Output goes to a temporary file renamed over OUT.pcap only when the whole
 * conversion succeeded, so a failed run never leaves a partial capture
 * (an existing FIFO or device as OUT is written directly, never replaced).
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <pcap/pcap.h>

#include <omni_num.h>
#include "opa16b.h"
#include "opa16b_vnic.h"

#define LINKTYPE_ETHERNET 1
#define LINKTYPE_USER0 147
#define SNAPLEN 65535

static const char *prog = "opa16b-pcap";

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: %s encap [--slid N] [--dlid N] [--pkey N] [--sc N] [--rc N]\n"
		"                   [--entropy N] [--vesw N] IN.pcap OUT.pcap\n"
		"       %s decap [--mtu N] IN.pcap OUT.pcap\n"
		"\n"
		"encap: Ethernet frames (linktype 1) -> 16B VNIC packets (linktype 147)\n"
		"decap: 16B VNIC packets (linktype 147) -> Ethernet frames (linktype 1);\n"
		"       prints the packets decapsulated and the rejections by reason\n"
		"Numbers are decimal or 0x-hex. Defaults: slid 1, dlid 2, pkey 0x8001,\n"
		"sc 0, rc 0, entropy 0, vesw 1, mtu %u (no limit below the format's).\n",
		prog, prog, OPA16B_VNIC_ETH_MAX - OPA16B_VNIC_ETH_OVERHEAD);
}

/* A decimal or 0x-hex number no larger than max (omni_num.h's rules). */
static int
parse_num(const char *name, const char *arg, uint64_t max, uint64_t *val)
{
	int ret = omni_parse_uint(arg, 0, max, OMNI_NUM_HEX, val);

	if (ret == -EINVAL) {
		fprintf(stderr, "%s: --%s: '%s' is not a decimal or 0x-hex number\n",
			prog, name, arg);
		return -1;
	}
	if (ret != 0) {
		fprintf(stderr, "%s: --%s: %s is too wide for the field (max %" PRIu64 " / 0x%"
			PRIx64 ")\n", prog, name, arg, max, max);
		return -1;
	}
	return 0;
}

/*
 * Output capture. A regular file (or a new one) is written to a temporary
 * file made with mkstemp() beside it and renamed into place only when the
 * whole conversion succeeded; anything else that exists (a FIFO, a device,
 * /dev/stdout) is written directly, never replaced.
 */
struct output {
	pcap_t *dead;
	pcap_dumper_t *dumper;
	FILE *fp;
	char tmp_path[PATH_MAX];
	const char *path;
	int direct;
};

static int
output_open(struct output *o, const char *path, int linktype)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
	if (o->direct) {
		o->fp = fopen(path, "w");
	} else {
		if ((size_t)snprintf(o->tmp_path, sizeof(o->tmp_path), "%s.tmp.XXXXXX",
				     path) >= sizeof(o->tmp_path)) {
			fprintf(stderr, "%s: %s: path too long\n", prog, path);
			return -1;
		}
		fd = mkstemp(o->tmp_path);
		o->fp = fd < 0 ? NULL : fdopen(fd, "w");
		if (o->fp == NULL && fd >= 0) {
			close(fd);
			unlink(o->tmp_path);
		}
	}
	if (o->fp == NULL) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	o->dead = pcap_open_dead(linktype, SNAPLEN);
	o->dumper = o->dead == NULL ? NULL : pcap_dump_fopen(o->dead, o->fp);
	if (o->dumper == NULL) {
		fprintf(stderr, "%s: %s: cannot start a pcap file\n", prog, path);
		if (o->dead != NULL)
			pcap_close(o->dead);
		fclose(o->fp);
		if (!o->direct)
			unlink(o->tmp_path);
		return -1;
	}
	return 0;
}

/* Finish the output: rename into place on success, remove it otherwise.
 * Write errors anywhere in the stream are caught here (ferror is sticky).
 */
static int
output_close(struct output *o, int ok)
{
	if (pcap_dump_flush(o->dumper) != 0 || ferror(o->fp) ||
	    (!o->direct && fsync(fileno(o->fp)) != 0)) {
		if (ok)
			fprintf(stderr, "%s: %s: write failed: %s\n", prog, o->path,
				strerror(errno));
		ok = 0;
	}
	pcap_dump_close(o->dumper); /* closes o->fp */
	pcap_close(o->dead);
	if (o->direct)
		return ok ? 0 : -1;
	if (ok && rename(o->tmp_path, o->path) != 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, o->path, strerror(errno));
		ok = 0;
	}
	if (!ok)
		unlink(o->tmp_path);
	return ok ? 0 : -1;
}

static pcap_t *
input_open(const char *path, int want_linktype)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *in;

	in = pcap_open_offline(path, err);
	if (in == NULL) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, err);
		return NULL;
	}
	if (pcap_datalink(in) != want_linktype) {
		fprintf(stderr, "%s: %s: linktype %d, expected %d (%s)\n", prog, path,
			pcap_datalink(in), want_linktype,
			want_linktype == LINKTYPE_ETHERNET ? "Ethernet" : "USER0, 16B");
		pcap_close(in);
		return NULL;
	}
	return in;
}

static int
cmd_encap(const struct opa16b_vnic_fields *f, const char *in_path, const char *out_path)
{
	static uint8_t pkt[OPA16B_PKT_MAX];
	struct pcap_pkthdr *ph, oh;
	const u_char *data;
	struct output out;
	unsigned long n = 0;
	FILE *report;
	pcap_t *in;
	int ret, ok = 1;

	in = input_open(in_path, LINKTYPE_ETHERNET);
	if (in == NULL)
		return 1;
	if (output_open(&out, out_path, LINKTYPE_USER0) != 0) {
		pcap_close(in);
		return 1;
	}
	while ((ret = pcap_next_ex(in, &ph, &data)) == 1) {
		n++;
		if (ph->caplen < ph->len) {
			fprintf(stderr, "%s: %s: packet %lu: captured %u of %u bytes\n",
				prog, in_path, n, ph->caplen, ph->len);
			ok = 0;
			break;
		}
		ret = opa16b_vnic_encap_buf(pkt, sizeof(pkt), data, ph->caplen, f);
		if (ret < 0) {
			fprintf(stderr, "%s: %s: packet %lu (%u bytes): %s\n", prog, in_path,
				n, ph->caplen, ret == -EMSGSIZE ?
				"longer than a 16B packet can carry" :
				"shorter than an Ethernet header");
			ok = 0;
			break;
		}
		oh.ts = ph->ts;
		oh.caplen = oh.len = ret;
		pcap_dump((u_char *)out.dumper, &oh, pkt);
	}
	if (ok && ret == PCAP_ERROR) {
		fprintf(stderr, "%s: %s: %s\n", prog, in_path, pcap_geterr(in));
		ok = 0;
	}
	pcap_close(in);
	report = out.direct ? stderr : stdout; /* a direct output may be stdout */
	if (output_close(&out, ok) != 0)
		return 1;
	fprintf(report, "encapsulated: %lu\n", n);
	return 0;
}

static int
cmd_decap(uint32_t mtu, const char *in_path, const char *out_path)
{
	uint64_t errors[OPA16B_VNIC_RX_ERR_MAX] = { 0 };
	struct opa16b_vnic_rx_info info;
	enum opa16b_vnic_rx_err err;
	struct pcap_pkthdr *ph, oh;
	unsigned long n_ok = 0;
	const u_char *data;
	struct output out;
	FILE *report;
	pcap_t *in;
	int ret, ok = 1;
	unsigned int i;

	in = input_open(in_path, LINKTYPE_USER0);
	if (in == NULL)
		return 1;
	if (output_open(&out, out_path, LINKTYPE_ETHERNET) != 0) {
		pcap_close(in);
		return 1;
	}
	while ((ret = pcap_next_ex(in, &ph, &data)) == 1) {
		if (ph->caplen < ph->len)
			err = OPA16B_VNIC_RX_TRUNCATED; /* snapped: not the whole packet */
		else
			err = opa16b_vnic_check_buf(data, ph->caplen, mtu, &info);
		if (err != OPA16B_VNIC_RX_OK) {
			errors[err]++;
			continue;
		}
		oh.ts = ph->ts;
		oh.caplen = oh.len = info.eth_len;
		pcap_dump((u_char *)out.dumper, &oh, data + OPA16B_VNIC_HDR_LEN);
		n_ok++;
	}
	if (ret == PCAP_ERROR) {
		fprintf(stderr, "%s: %s: %s\n", prog, in_path, pcap_geterr(in));
		ok = 0;
	}
	pcap_close(in);
	report = out.direct ? stderr : stdout; /* a direct output may be stdout */
	if (output_close(&out, ok) != 0)
		return 1;
	fprintf(report, "decapsulated: %lu\n", n_ok);
	for (i = OPA16B_VNIC_RX_OK + 1; i < OPA16B_VNIC_RX_ERR_MAX; i++)
		fprintf(report, "rejected %s: %" PRIu64 "\n", opa16b_vnic_rx_err_name(i),
			errors[i]);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option encap_opts[] = {
		{ "slid", required_argument, NULL, 's' },
		{ "dlid", required_argument, NULL, 'd' },
		{ "pkey", required_argument, NULL, 'p' },
		{ "sc", required_argument, NULL, 'c' },
		{ "rc", required_argument, NULL, 'r' },
		{ "entropy", required_argument, NULL, 'e' },
		{ "vesw", required_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option decap_opts[] = {
		{ "mtu", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opa16b_vnic_fields f = {
		.slid = 1, .dlid = 2, .pkey = 0x8001, .vesw_id = 1,
	};
	uint64_t mtu = OPA16B_VNIC_ETH_MAX - OPA16B_VNIC_ETH_OVERHEAD;
	const struct option *opts;
	uint64_t v;
	int encap, c, idx;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "encap") == 0) {
		encap = 1;
		opts = encap_opts;
	} else if (strcmp(argv[1], "decap") == 0) {
		encap = 0;
		opts = decap_opts;
	} else {
		fprintf(stderr, "%s: unknown command '%s' (encap or decap)\n", prog, argv[1]);
		return 2;
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
		const char *name = c == '?' || c == 'h' ? NULL : opts[idx].name;
		int bad = 0;

		switch (c) {
		case 's':
			bad = parse_num(name, optarg, OPA16B_LID_MAX, &v);
			f.slid = v;
			break;
		case 'd':
			bad = parse_num(name, optarg, OPA16B_LID_MAX, &v);
			f.dlid = v;
			break;
		case 'p':
			bad = parse_num(name, optarg, OPA16B_PKEY_MAX, &v);
			f.pkey = v;
			break;
		case 'c':
			bad = parse_num(name, optarg, OPA16B_SC_MAX, &v);
			f.sc = v;
			break;
		case 'r':
			bad = parse_num(name, optarg, OPA16B_RC_MAX, &v);
			f.rc = v;
			break;
		case 'e':
			bad = parse_num(name, optarg, OPA16B_ENTROPY_MAX, &v);
			f.entropy = v;
			break;
		case 'v':
			bad = parse_num(name, optarg, OPA16B_VESW_ID_MAX, &v);
			f.vesw_id = v;
			break;
		case 'm':
			bad = parse_num(name, optarg,
					OPA16B_VNIC_ETH_MAX - OPA16B_VNIC_ETH_OVERHEAD, &mtu);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (bad)
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "%s: need IN.pcap and OUT.pcap\n", prog);
		usage(stderr);
		return 2;
	}
	if (encap)
		return cmd_encap(&f, argv[optind], argv[optind + 1]);
	return cmd_decap(mtu, argv[optind], argv[optind + 1]);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * e4-fw-standin: writes a STAND-IN for qed_init_values-8.40.33.0.bin, the
 * init-values file DPDK 22.11's net_qede reads and Debian does not ship
 * (doc/e4.md, "Debian's net_qede as the judge"). It is not firmware: it
 * holds no init values, no storm code, no register settings. Its layout is
 * the real container's (doc/e4-firmware.md):
 *   dword 0          file offset of the debug data (1337296: qede reads there
 *                    whatever dword 0 says)
 *   blob (from 4)    7 {offset, length} slots, then FW_VER_INFO (8.40.33.0),
 *                    INIT_CMD, INIT_VAL (one zero dword), MODE_TREE (one
 *                    zero dword), IRO (empty: qede 22.11 has its table
 *                    compiled in), OVERLAYS (one 1-dword T-storm buffer:
 *                    qede refuses a file without one)
 *   debug data       zeros (every debug array empty)
 * INIT_CMD is, unless --empty: one IF_PHASE(PF, any) block of RUNTIME writes
 * only, for the runtime-array ranges the device's host interface is
 * programmed through (IGU, CAU status blocks, CDUC first/last ILT line, ILT,
 * CDU context parameters): the values are the driver's own, staged in its
 * runtime array; these ops are the only way they reach a device. --empty
 * writes no op at all (a PF_START then finds no context: the wrong case).
 *
 * usage: e4-fw-standin [--empty] OUTPUT
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omni_bytes.h"
#include "ecore_reg.h"
#include "ecore_rt_defs.h"

#define DBG_DATA_OFFSET		1337296u	/* where qede's debug code reads */
#define DBG_DATA_SIZE		65536u		/* zeros: every debug buffer empty */
#define NUM_SLOTS		7u
#define BLOB_START		4u

/* init op words (doc/e4-firmware.md §3) */
#define OP_WRITE		1u
#define OP_IF_PHASE		3u
#define SRC_RUNTIME		3u
#define PHASE_PF		2u
#define PHASE_ID_ANY		0xffffu
#define STORM_T			0u

struct rt_range {
	uint32_t addr;		/* GRC byte address */
	uint16_t rt_offset;
	uint16_t size;		/* dwords */
	int wide;		/* wide-bus: written by DMAE */
};

static const struct rt_range rt_ranges[] = {
	{ IGU_REG_PF_CONFIGURATION, IGU_REG_PF_CONFIGURATION_RT_OFFSET, 4, 0 },
	{ CAU_REG_SB_VAR_MEMORY, CAU_REG_SB_VAR_MEMORY_RT_OFFSET,
	  CAU_REG_SB_VAR_MEMORY_RT_SIZE, 0 },
	{ CAU_REG_SB_ADDR_MEMORY, CAU_REG_SB_ADDR_MEMORY_RT_OFFSET,
	  CAU_REG_SB_ADDR_MEMORY_RT_SIZE, 0 },
	{ PSWRQ2_REG_CDUC_FIRST_ILT, PSWRQ2_REG_CDUC_FIRST_ILT_RT_OFFSET, 2, 0 },
	{ PSWRQ2_REG_ILT_MEMORY, PSWRQ2_REG_ILT_MEMORY_RT_OFFSET,
	  PSWRQ2_REG_ILT_MEMORY_RT_SIZE, 1 },
	{ CDU_REG_CID_ADDR_PARAMS, CDU_REG_CID_ADDR_PARAMS_RT_OFFSET, 1, 0 },
};

_Static_assert(PSWRQ2_REG_CDUC_LAST_ILT_RT_OFFSET == PSWRQ2_REG_CDUC_FIRST_ILT_RT_OFFSET + 1,
	       "CDUC first/last are one range");
_Static_assert(IGU_REG_ATTN_MSG_ADDR_H_RT_OFFSET == IGU_REG_PF_CONFIGURATION_RT_OFFSET + 3,
	       "IGU PF conf .. ATTN_MSG_ADDR_H are one range");

static size_t
put_op(uint8_t *p, uint32_t d0, uint32_t d1)
{
	omni_put_le32(p, d0);
	omni_put_le32(p + 4, d1);
	return 8;
}

/* The INIT_CMD buffer into @p p; returns its length. */
static size_t
build_ops(uint8_t *p, int empty)
{
	size_t n = 0, i;
	const size_t nr = sizeof(rt_ranges) / sizeof(rt_ranges[0]);

	if (empty)
		return 0;
	n += put_op(p + n, OP_IF_PHASE | (uint32_t)nr << 16, PHASE_PF | PHASE_ID_ANY << 16);
	for (i = 0; i < nr; i++) {
		const struct rt_range *r = &rt_ranges[i];

		n += put_op(p + n, OP_WRITE | SRC_RUNTIME << 4 | (uint32_t)r->wide << 8 |
			    (r->addr >> 2) << 9, r->size | (uint32_t)r->rt_offset << 16);
	}
	return n;
}

int
main(int argc, char **argv)
{
	static uint8_t img[DBG_DATA_OFFSET + DBG_DATA_SIZE];
	uint8_t *blob = img + BLOB_START;
	uint32_t off = NUM_SLOTS * 8, len;
	const char *out;
	int empty = 0;
	unsigned int slot = 0;
	FILE *f;

	if (argc == 3 && strcmp(argv[1], "--empty") == 0) {
		empty = 1;
		out = argv[2];
	} else if (argc == 2 && argv[1][0] != '-') {
		out = argv[1];
	} else {
		fprintf(stderr, "usage: %s [--empty] OUTPUT\n", argv[0]);
		return 2;
	}
	omni_put_le32(img, DBG_DATA_OFFSET);

#define SLOT(l) do { \
		omni_put_le32(blob + slot * 8, off); \
		omni_put_le32(blob + slot * 8 + 4, (l)); \
		off += (l); slot++; \
	} while (0)
	/* FW_VER_INFO: tools_ver, image_id, rsv, major, minor, rev, eng, timestamp, rsv */
	blob[off + 4] = 8;
	blob[off + 5] = 40;
	blob[off + 6] = 33;
	blob[off + 7] = 0;
	SLOT(16);
	len = build_ops(blob + off, empty);
	SLOT(len);
	SLOT(4);		/* INIT_VAL: one zero dword */
	SLOT(4);		/* MODE_TREE: one zero byte (+ padding) */
	SLOT(0);		/* IRO */
	omni_put_le32(blob + off, STORM_T | 1u << 8);	/* OVERLAYS: T, 1 dword */
	SLOT(8);
	omni_put_le32(blob + slot * 8, 0xffffffff);	/* slot 6: unused */
	omni_put_le32(blob + slot * 8 + 4, 0xffffffff);
#undef SLOT
	if (BLOB_START + off > DBG_DATA_OFFSET) {
		fprintf(stderr, "%s: init buffers overrun the debug data\n", argv[0]);
		return 1;
	}
	f = fopen(out, "wb");
	if (f == NULL || fwrite(img, sizeof(img), 1, f) != 1 || fclose(f) != 0) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], out, strerror(errno));
		return 1;
	}
	return 0;
}

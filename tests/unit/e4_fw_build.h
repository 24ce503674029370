/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _E4_FW_BUILD_H_
#define _E4_FW_BUILD_H_

/*
 * Hand-made init-values files for the loader's tests and the fuzzer's
 * seeds: our own ops, arrays, mode tree, IRO table and overlays in the
 * file's layout (base/ecore_init_fw.h), never pieces of the real file.
 */

#include <stdint.h>
#include <string.h>

#include <zlib.h>

#include "ecore_init_fw.h"
#include "ecore_init_ops.h"
#include "omni_bytes.h"

#define FWB_MAX_OPS 256
#define FWB_MAX_VAL 32768	/* dwords */
#define FWB_MAX_TREE 256
#define FWB_MAX_OVL 1024	/* dwords */

struct fwb {
	uint8_t major, minor, rev, eng;
	uint32_t ops[2 * FWB_MAX_OPS];
	uint32_t n_ops;
	uint32_t val[FWB_MAX_VAL];
	uint32_t n_val;
	uint8_t tree[FWB_MAX_TREE];
	uint32_t n_tree;
	uint32_t n_iro;		/* entries; named ones get the profile's sizes */
	uint32_t ovl[FWB_MAX_OVL];
	uint32_t n_ovl;
};

/* An empty 8.42.2.0 image: the profile's IRO table, no ops yet. */
static inline void
fwb_init(struct fwb *b)
{
	memset(b, 0, sizeof(*b));
	b->major = 8;
	b->minor = 42;
	b->rev = 2;
	b->n_iro = 69;
}

static inline uint32_t
fwb_op(struct fwb *b, uint32_t d0, uint32_t d1)
{
	b->ops[2 * b->n_ops] = d0;
	b->ops[2 * b->n_ops + 1] = d1;
	return b->n_ops++;
}

static inline uint32_t
fwb_if_phase(struct fwb *b, int phase, uint32_t phase_id, uint32_t skip)
{
	return fwb_op(b, ECORE_INIT_OP_IF_PHASE | skip << 16, (uint32_t)phase | phase_id << 16);
}

/* Set the skip count of the IF op at @p at so its block ends here. */
static inline void
fwb_end_block(struct fwb *b, uint32_t at)
{
	b->ops[2 * at] = (b->ops[2 * at] & 0xffff) | (b->n_ops - at - 1) << 16;
}

static inline uint32_t
fwb_if_mode(struct fwb *b, uint32_t tree_off, uint32_t skip)
{
	return fwb_op(b, ECORE_INIT_OP_IF_MODE | skip << 16, tree_off << 16);
}

static inline uint32_t
fwb_write(struct fwb *b, int src, bool wide, uint32_t addr, uint32_t arg)
{
	return fwb_op(b, ECORE_INIT_OP_WRITE | (uint32_t)src << 4 | (uint32_t)wide << 8 |
		      (addr >> 2) << 9, arg);
}

static inline uint32_t
fwb_read(struct fwb *b, int poll, uint32_t addr, uint32_t expected)
{
	return fwb_op(b, ECORE_INIT_OP_READ | (uint32_t)poll << 4 | (addr >> 2) << 9, expected);
}

static inline uint32_t
fwb_callback(struct fwb *b, uint16_t id, uint16_t block)
{
	return fwb_op(b, ECORE_INIT_OP_CALLBACK, id | (uint32_t)block << 16);
}

/* A standard array of @p n dwords; returns its INIT_VAL dword offset. */
static inline uint32_t
fwb_array(struct fwb *b, const uint32_t *v, uint32_t n)
{
	uint32_t at = b->n_val;

	b->val[b->n_val++] = ECORE_INIT_ARR_STANDARD | n << 4;
	memcpy(&b->val[b->n_val], v, 4 * n);
	b->n_val += n;
	return at;
}

static inline uint32_t
fwb_pattern(struct fwb *b, const uint32_t *v, uint32_t n, uint32_t reps)
{
	uint32_t at = b->n_val;

	b->val[b->n_val++] = ECORE_INIT_ARR_PATTERN | n << 4 | reps << 8;
	memcpy(&b->val[b->n_val], v, 4 * n);
	b->n_val += n;
	return at;
}

/* A zipped array holding @p len bytes of @p data (zlib level 9). */
static inline uint32_t
fwb_zipped(struct fwb *b, const void *data, uint32_t len)
{
	uint32_t at = b->n_val;
	uLongf clen = compressBound(len);
	uint8_t *dst = (uint8_t *)&b->val[at + 1];

	compress2(dst, &clen, data, len, 9);
	b->val[at] = ECORE_INIT_ARR_ZIPPED | (uint32_t)clen << 4;
	b->n_val += 1 + (uint32_t)(clen + 3) / 4;
	return at;
}

static inline uint32_t
fwb_tree(struct fwb *b, const uint8_t *expr, uint32_t n)
{
	uint32_t at = b->n_tree;

	memcpy(&b->tree[at], expr, n);
	b->n_tree += n;
	return at;
}

static inline void
fwb_overlay(struct fwb *b, int storm, const uint32_t *v, uint32_t n)
{
	b->ovl[b->n_ovl++] = (uint32_t)storm | n << 8;
	memcpy(&b->ovl[b->n_ovl], v, 4 * n);
	b->n_ovl += n;
}

/* Offsets of the parts in the emitted file (for tests that corrupt them). */
#define FWB_BLOB 4u
#define FWB_TABLE_SLOTS 7u

/*
 * Emit the file into @p out (at most @p cap bytes).
 * @return its length, or 0 if it does not fit.
 */
static inline size_t
fwb_emit(const struct fwb *b, uint8_t *out, size_t cap)
{
	uint32_t len[ECORE_FW_BUF__MAX] = {
		16, 8 * b->n_ops, 4 * b->n_val, b->n_tree, 12 * b->n_iro, 4 * b->n_ovl,
	};
	uint32_t off[ECORE_FW_BUF__MAX], pos = 8 * FWB_TABLE_SLOTS, i, n;
	const struct ecore_fw_profile *p;
	unsigned int np;
	uint8_t *blob = out + FWB_BLOB;
	size_t total;

	for (i = 0; i < ECORE_FW_BUF__MAX; i++) {
		off[i] = pos;
		pos += (len[i] + 3) & ~3u;
	}
	total = FWB_BLOB + pos + 4;	/* + a 4-byte debug section */
	if (total > cap)
		return 0;
	memset(out, 0, total);
	omni_put_le32(out, FWB_BLOB + pos);
	for (i = 0; i < FWB_TABLE_SLOTS; i++) {
		omni_put_le32(blob + 8 * i, i < ECORE_FW_BUF__MAX ? off[i] : 0xffffffff);
		omni_put_le32(blob + 8 * i + 4, i < ECORE_FW_BUF__MAX ? len[i] : 0xffffffff);
	}
	/* fw_ver_info: tools_ver, image_id, rsv, major, minor, rev, eng, timestamp */
	blob[off[0] + 4] = b->major;
	blob[off[0] + 5] = b->minor;
	blob[off[0] + 6] = b->rev;
	blob[off[0] + 7] = b->eng;
	for (i = 0; i < 2 * b->n_ops; i++)
		omni_put_le32(blob + off[1] + 4 * i, b->ops[i]);
	for (i = 0; i < b->n_val; i++)
		omni_put_le32(blob + off[2] + 4 * i, b->val[i]);
	memcpy(blob + off[3], b->tree, b->n_tree);
	/* IRO: entry i = {0x100 * i, m1 8, m2 0, m3 0, size 4}, named ones sized
	 * as the profile of this version says */
	p = ecore_fw_profiles(&np);
	for (n = 0; n < np; n++)
		if (p[n].major == b->major && p[n].minor == b->minor && p[n].rev == b->rev)
			break;
	for (i = 0; i < b->n_iro; i++) {
		uint8_t *e = blob + off[4] + 12 * i;
		uint16_t size = 4;
		unsigned int k;

		if (n < np)
			for (k = 0; k < ECORE_IRO__MAX; k++)
				if (p[n].iro_idx[k] == i)
					size = p[n].iro_size[k];
		omni_put_le32(e, 0x100 * i);
		omni_put_le16(e + 4, 8);
		omni_put_le16(e + 10, size);
	}
	for (i = 0; i < b->n_ovl; i++)
		omni_put_le32(blob + off[5] + 4 * i, b->ovl[i]);
	return total;
}

/* The byte offset in the emitted file of slot @p buf's {offset, length}. */
static inline size_t
fwb_slot_at(int buf)
{
	return FWB_BLOB + 8u * buf;
}

/* The byte offset in the emitted file of buffer @p buf's start. */
static inline size_t
fwb_buf_at(const uint8_t *file, int buf)
{
	return FWB_BLOB + omni_get_le32(file + fwb_slot_at(buf));
}

#endif /* _E4_FW_BUILD_H_ */

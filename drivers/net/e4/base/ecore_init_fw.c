/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The init-values file: buffer table, version and profile, IRO table,
 * overlays, and every init op checked (arrays inflated) before anything runs.
 */

#include <stdarg.h>
#include <stdio.h>

#include <zlib.h>

#include "ecore_init_fw.h"
#include "ecore_init_ops.h"

struct ecore_fw_zipped {
	uint32_t val_dw;	/* header's dword offset in INIT_VAL */
	uint32_t n_dw;		/* inflated dwords */
	uint8_t *data;		/* inflated bytes (LE dwords) */
};

static const char *const buf_names[ECORE_FW_BUF__MAX] = {
	"FW_VER_INFO", "INIT_CMD", "INIT_VAL", "INIT_MODE_TREE", "INIT_IRO", "INIT_OVERLAYS",
};

static const char *const iro_names[ECORE_IRO__MAX] = {
	[ECORE_IRO_MSTORM_ETH_PF_PRODS] = "MSTORM_ETH_PF_PRODS",
	[ECORE_IRO_MSTORM_ETH_VF_PRODS] = "MSTORM_ETH_VF_PRODS",
	[ECORE_IRO_USTORM_EQE_CONS] = "USTORM_EQE_CONS",
	[ECORE_IRO_USTORM_FLR_FINAL_ACK] = "USTORM_FLR_FINAL_ACK",
	[ECORE_IRO_USTORM_VF_PF_CHANNEL_READY] = "USTORM_VF_PF_CHANNEL_READY",
	[ECORE_IRO_USTORM_ETH_QUEUE_ZONE] = "USTORM_ETH_QUEUE_ZONE",
	[ECORE_IRO_USTORM_COMMON_QUEUE_CONS] = "USTORM_COMMON_QUEUE_CONS",
	[ECORE_IRO_XSTORM_ETH_QUEUE_ZONE] = "XSTORM_ETH_QUEUE_ZONE",
	[ECORE_IRO_TSTORM_ETH_RSS_UPDATE] = "TSTORM_ETH_RSS_UPDATE",
	[ECORE_IRO_TSTORM_PORT_STAT] = "TSTORM_PORT_STAT",
	[ECORE_IRO_MSTORM_QUEUE_STAT] = "MSTORM_QUEUE_STAT",
	[ECORE_IRO_USTORM_QUEUE_STAT] = "USTORM_QUEUE_STAT",
	[ECORE_IRO_MSTORM_ETH_PF_STAT] = "MSTORM_ETH_PF_STAT",
	[ECORE_IRO_USTORM_ETH_PF_STAT] = "USTORM_ETH_PF_STAT",
	[ECORE_IRO_XSTORM_OVERLAY_BUF_ADDR] = "XSTORM_OVERLAY_BUF_ADDR",
	[ECORE_IRO_YSTORM_OVERLAY_BUF_ADDR] = "YSTORM_OVERLAY_BUF_ADDR",
	[ECORE_IRO_PSTORM_OVERLAY_BUF_ADDR] = "PSTORM_OVERLAY_BUF_ADDR",
	[ECORE_IRO_TSTORM_OVERLAY_BUF_ADDR] = "TSTORM_OVERLAY_BUF_ADDR",
	[ECORE_IRO_MSTORM_OVERLAY_BUF_ADDR] = "MSTORM_OVERLAY_BUF_ADDR",
	[ECORE_IRO_USTORM_OVERLAY_BUF_ADDR] = "USTORM_OVERLAY_BUF_ADDR",
};

/*
 * The profiles. 8.42.2.0's IRO positions are its file's table (69 entries,
 * the same order as DPDK 22.11's); 8.59.1.0 inserts two entries (at 1 and 4),
 * which moves TSTORM_PORT_STAT by one and everything from 3 on by two. The
 * sizes are checked against the file at parse time, so a wrong position is
 * a refusal, never a wrong address.
 */
#define IRO_L2_SIZES \
	[ECORE_IRO_MSTORM_ETH_PF_PRODS] = 4, [ECORE_IRO_MSTORM_ETH_VF_PRODS] = 4, \
	[ECORE_IRO_USTORM_EQE_CONS] = 2, [ECORE_IRO_USTORM_FLR_FINAL_ACK] = 4, \
	[ECORE_IRO_USTORM_VF_PF_CHANNEL_READY] = 4, [ECORE_IRO_USTORM_ETH_QUEUE_ZONE] = 4, \
	[ECORE_IRO_USTORM_COMMON_QUEUE_CONS] = 2, [ECORE_IRO_XSTORM_ETH_QUEUE_ZONE] = 8, \
	[ECORE_IRO_TSTORM_ETH_RSS_UPDATE] = 8, [ECORE_IRO_TSTORM_PORT_STAT] = 136, \
	[ECORE_IRO_MSTORM_QUEUE_STAT] = 64, [ECORE_IRO_USTORM_QUEUE_STAT] = 48, \
	[ECORE_IRO_MSTORM_ETH_PF_STAT] = 32, [ECORE_IRO_USTORM_ETH_PF_STAT] = 96, \
	[ECORE_IRO_XSTORM_OVERLAY_BUF_ADDR] = 8, [ECORE_IRO_YSTORM_OVERLAY_BUF_ADDR] = 8, \
	[ECORE_IRO_PSTORM_OVERLAY_BUF_ADDR] = 8, [ECORE_IRO_TSTORM_OVERLAY_BUF_ADDR] = 8, \
	[ECORE_IRO_MSTORM_OVERLAY_BUF_ADDR] = 8, [ECORE_IRO_USTORM_OVERLAY_BUF_ADDR] = 8

static const struct ecore_fw_profile profiles[] = {
	{
		.name = "8.42.2.0", .major = 8, .minor = 42, .rev = 2,
		.rt_size = 34472, .rt_shift_from = 0, .rt_shift_by = 0,
		.min_iro = 69,
		.iro_idx = {
			[ECORE_IRO_MSTORM_ETH_PF_PRODS] = 28,
			[ECORE_IRO_MSTORM_ETH_VF_PRODS] = 27,
			[ECORE_IRO_USTORM_EQE_CONS] = 5,
			[ECORE_IRO_USTORM_FLR_FINAL_ACK] = 4,
			[ECORE_IRO_USTORM_VF_PF_CHANNEL_READY] = 3,
			[ECORE_IRO_USTORM_ETH_QUEUE_ZONE] = 6,
			[ECORE_IRO_USTORM_COMMON_QUEUE_CONS] = 7,
			[ECORE_IRO_XSTORM_ETH_QUEUE_ZONE] = 38,
			[ECORE_IRO_TSTORM_ETH_RSS_UPDATE] = 37,
			[ECORE_IRO_TSTORM_PORT_STAT] = 1,
			[ECORE_IRO_MSTORM_QUEUE_STAT] = 25,
			[ECORE_IRO_USTORM_QUEUE_STAT] = 30,
			[ECORE_IRO_MSTORM_ETH_PF_STAT] = 29,
			[ECORE_IRO_USTORM_ETH_PF_STAT] = 31,
			[ECORE_IRO_XSTORM_OVERLAY_BUF_ADDR] = 15,
			[ECORE_IRO_YSTORM_OVERLAY_BUF_ADDR] = 16,
			[ECORE_IRO_PSTORM_OVERLAY_BUF_ADDR] = 17,
			[ECORE_IRO_TSTORM_OVERLAY_BUF_ADDR] = 18,
			[ECORE_IRO_MSTORM_OVERLAY_BUF_ADDR] = 19,
			[ECORE_IRO_USTORM_OVERLAY_BUF_ADDR] = 20,
		},
		.iro_size = { IRO_L2_SIZES },
	},
	{
		.name = "8.59.1.0", .major = 8, .minor = 59, .rev = 1,
		.rt_size = 34984, .rt_shift_from = 32068, .rt_shift_by = 512,
		.min_iro = 71,
		.iro_idx = {
			[ECORE_IRO_MSTORM_ETH_PF_PRODS] = 30,
			[ECORE_IRO_MSTORM_ETH_VF_PRODS] = 29,
			[ECORE_IRO_USTORM_EQE_CONS] = 7,
			[ECORE_IRO_USTORM_FLR_FINAL_ACK] = 6,
			[ECORE_IRO_USTORM_VF_PF_CHANNEL_READY] = 5,
			[ECORE_IRO_USTORM_ETH_QUEUE_ZONE] = 8,
			[ECORE_IRO_USTORM_COMMON_QUEUE_CONS] = 9,
			[ECORE_IRO_XSTORM_ETH_QUEUE_ZONE] = 40,
			[ECORE_IRO_TSTORM_ETH_RSS_UPDATE] = 39,
			[ECORE_IRO_TSTORM_PORT_STAT] = 2,
			[ECORE_IRO_MSTORM_QUEUE_STAT] = 27,
			[ECORE_IRO_USTORM_QUEUE_STAT] = 32,
			[ECORE_IRO_MSTORM_ETH_PF_STAT] = 31,
			[ECORE_IRO_USTORM_ETH_PF_STAT] = 33,
			[ECORE_IRO_XSTORM_OVERLAY_BUF_ADDR] = 17,
			[ECORE_IRO_YSTORM_OVERLAY_BUF_ADDR] = 18,
			[ECORE_IRO_PSTORM_OVERLAY_BUF_ADDR] = 19,
			[ECORE_IRO_TSTORM_OVERLAY_BUF_ADDR] = 20,
			[ECORE_IRO_MSTORM_OVERLAY_BUF_ADDR] = 21,
			[ECORE_IRO_USTORM_OVERLAY_BUF_ADDR] = 22,
		},
		.iro_size = { IRO_L2_SIZES },
	},
};

const struct ecore_fw_profile *
ecore_fw_profiles(unsigned int *n)
{
	*n = ECORE_ARRAY_SIZE(profiles);
	return profiles;
}

int
ecore_fw_file_name(const struct ecore_fw_profile *p, char *buf, size_t len)
{
	return snprintf(buf, len, "qed_init_values_zipped-%s.bin", p->name);
}

const char *
ecore_iro_name_str(enum ecore_iro_name n)
{
	return (unsigned int)n < ECORE_IRO__MAX ? iro_names[n] : "?";
}

/* Entry @p n of the file's IRO table: {u32 base; u16 m1, m2, m3; u16 size}. */
static const uint8_t *
iro_entry(const struct ecore_fw_image *img, enum ecore_iro_name n)
{
	return img->buf[ECORE_FW_BUF_IRO].p + 12u * img->profile->iro_idx[n];
}

uint32_t
ecore_iro_addr(const struct ecore_fw_image *img, enum ecore_iro_name n, uint32_t i1,
	       uint32_t i2, uint32_t i3)
{
	const uint8_t *e;

	if ((unsigned int)n >= ECORE_IRO__MAX)
		return 0;
	e = iro_entry(img, n);
	return omni_get_le32(e) + i1 * omni_get_le16(e + 4) + i2 * omni_get_le16(e + 6) +
		i3 * omni_get_le16(e + 8);
}

uint16_t
ecore_iro_size(const struct ecore_fw_image *img, enum ecore_iro_name n)
{
	if ((unsigned int)n >= ECORE_IRO__MAX)
		return 0;
	return omni_get_le16(iro_entry(img, n) + 10);
}

/* ---- mode expressions ---- */

int
ecore_init_mode_eval(const uint8_t *tree, size_t len, uint32_t off, uint32_t modes)
{
	uint64_t stack = 0;	/* pending operands, top = bit 0 */
	unsigned int sp = 0;
	size_t i, end, need = 1;
	uint8_t b;

	/* Where the expression ends: each byte fills one operand, NOT wants
	 * one more, OR/AND two more. */
	for (i = off; need > 0; i++) {
		if (i >= len)
			return -1;
		b = tree[i];
		need--;
		if (b == 0)
			need++;
		else if (b <= 2)
			need += 2;
		else if (b - 3 >= 32)
			return -1;
	}
	end = i;
	/* Right to left, operands on a stack: no recursion on file data. */
	for (i = end; i-- > off;) {
		b = tree[i];
		if (b >= 3) {
			if (sp == 64)
				return -1;
			stack = stack << 1 | ((modes >> (b - 3)) & 1);
			sp++;
		} else if (b == 0) {
			stack ^= 1;
		} else {
			uint64_t a1 = stack & 1, a2 = (stack >> 1) & 1;

			stack = (stack >> 2) << 1 | (b == 1 ? (a1 | a2) : (a1 & a2));
			sp--;
		}
	}
	return (int)(stack & 1);
}

/* ---- parse ---- */

struct parse_ctx {
	struct ecore_fw_image *img;
	char *err;
	size_t err_len;
	uint8_t *seen;		/* INIT_VAL dwords that head an array already counted */
	uint8_t *scratch;	/* inflate buffer */
	uint32_t zipped_cap;
};

static enum _ecore_status_t __rte_format_printf(2, 3)
refuse(struct parse_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err != NULL && c->err_len > 0) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->err_len, fmt, ap);
		va_end(ap);
	}
	return ECORE_INVAL;
}

static uint32_t
val_dw(const struct ecore_fw_image *img, uint32_t i)
{
	return omni_get_le32(img->buf[ECORE_FW_BUF_INIT_VAL].p + 4u * i);
}

/* Slot @p i of the buffer table into img->buf[i]. */
static enum _ecore_status_t
parse_slot(struct parse_ctx *c, const uint8_t *blob, uint32_t blob_len, uint32_t first,
	   unsigned int i)
{
	uint32_t off = omni_get_le32(blob + 8 * i);
	uint32_t len = omni_get_le32(blob + 8 * i + 4);

	if (off < first || (uint64_t)off + len > blob_len)
		return refuse(c, "buffer %s: offset 0x%x length %u outside the blob "
			      "(table 0x%x, blob %u bytes)", buf_names[i], off, len, first,
			      blob_len);
	/* Dword buffers sit on dword offsets (the real files' do): the runner
	 * hands INIT_VAL's arrays to the DMAE client as uint32_t data. */
	if (i != ECORE_FW_BUF_VER_INFO && i != ECORE_FW_BUF_MODE_TREE && off % 4 != 0)
		return refuse(c, "buffer %s: offset 0x%x is not a multiple of 4", buf_names[i],
			      off);
	c->img->buf[i].p = blob + off;
	c->img->buf[i].len = len;
	return ECORE_SUCCESS;
}

/* The table and FW_VER_INFO: first, so a file of another version is
 * refused for its version rather than for a layout of its own. */
static enum _ecore_status_t
parse_table_head(struct parse_ctx *c, const uint8_t *blob, uint32_t blob_len, uint32_t *first)
{
	struct ecore_fw_image *img = c->img;

	if (blob_len < 8)
		return refuse(c, "buffer table: init blob of %u bytes has no table", blob_len);
	*first = omni_get_le32(blob);
	if (*first % 8 != 0 || *first / 8 < 1 || *first > blob_len)
		return refuse(c, "buffer table: first buffer at 0x%x (table within %u bytes)",
			      *first, blob_len);
	img->n_slots = *first / 8;
	if (parse_slot(c, blob, blob_len, *first, ECORE_FW_BUF_VER_INFO) != ECORE_SUCCESS)
		return ECORE_INVAL;
	if (img->buf[ECORE_FW_BUF_VER_INFO].len < 16)
		return refuse(c, "buffer FW_VER_INFO: %u bytes, need 16",
			      img->buf[ECORE_FW_BUF_VER_INFO].len);
	return ECORE_SUCCESS;
}

static enum _ecore_status_t
parse_table(struct parse_ctx *c, const uint8_t *blob, uint32_t blob_len, uint32_t first)
{
	struct ecore_fw_image *img = c->img;
	unsigned int i;

	if (img->n_slots < ECORE_FW_BUF__MAX)
		return refuse(c, "buffer table: %u slots, need %u", img->n_slots,
			      ECORE_FW_BUF__MAX);
	for (i = ECORE_FW_BUF_INIT_CMD; i < ECORE_FW_BUF__MAX; i++)
		if (parse_slot(c, blob, blob_len, first, i) != ECORE_SUCCESS)
			return ECORE_INVAL;
	if (img->buf[ECORE_FW_BUF_INIT_CMD].len % 8 != 0 ||
	    img->buf[ECORE_FW_BUF_INIT_CMD].len == 0)
		return refuse(c, "buffer INIT_CMD: %u bytes is not a whole number of 8-byte ops",
			      img->buf[ECORE_FW_BUF_INIT_CMD].len);
	if (img->buf[ECORE_FW_BUF_INIT_VAL].len % 4 != 0)
		return refuse(c, "buffer INIT_VAL: %u bytes is not whole dwords",
			      img->buf[ECORE_FW_BUF_INIT_VAL].len);
	if (img->buf[ECORE_FW_BUF_IRO].len % 12 != 0)
		return refuse(c, "buffer INIT_IRO: %u bytes is not a whole number of 12-byte "
			      "entries", img->buf[ECORE_FW_BUF_IRO].len);
	if (img->buf[ECORE_FW_BUF_OVERLAYS].len % 4 != 0)
		return refuse(c, "buffer INIT_OVERLAYS: %u bytes is not whole dwords",
			      img->buf[ECORE_FW_BUF_OVERLAYS].len);
	img->n_ops = img->buf[ECORE_FW_BUF_INIT_CMD].len / 8;
	img->n_iro = img->buf[ECORE_FW_BUF_IRO].len / 12;
	return ECORE_SUCCESS;
}

static enum _ecore_status_t
parse_version(struct parse_ctx *c)
{
	struct ecore_fw_image *img = c->img;
	const uint8_t *v = img->buf[ECORE_FW_BUF_VER_INFO].p;
	unsigned int i;

	img->ver.tools_ver = omni_get_le16(v);
	img->ver.image_id = v[2];
	img->ver.major = v[4];
	img->ver.minor = v[5];
	img->ver.rev = v[6];
	img->ver.eng = v[7];
	img->ver.timestamp = omni_get_le32(v + 8);
	/* Engineering numbers differ (the 8.59.1.0 file says 8.59.1.1). */
	for (i = 0; i < ECORE_ARRAY_SIZE(profiles); i++) {
		if (profiles[i].major == img->ver.major && profiles[i].minor == img->ver.minor &&
		    profiles[i].rev == img->ver.rev) {
			img->profile = &profiles[i];
			return ECORE_SUCCESS;
		}
	}
	return refuse(c, "FW_VER_INFO: firmware %u.%u.%u.%u has no profile (we run 8.42.2.x "
		      "and 8.59.1.x)", img->ver.major, img->ver.minor, img->ver.rev,
		      img->ver.eng);
}

static enum _ecore_status_t
parse_iro(struct parse_ctx *c)
{
	struct ecore_fw_image *img = c->img;
	const struct ecore_fw_profile *p = img->profile;
	unsigned int n;

	if (img->n_iro < p->min_iro)
		return refuse(c, "INIT_IRO: %u entries, the %s profile needs %u", img->n_iro,
			      p->name, p->min_iro);
	for (n = 0; n < ECORE_IRO__MAX; n++) {
		uint16_t size = ecore_iro_size(img, n);

		if (size != p->iro_size[n])
			return refuse(c, "INIT_IRO entry %u (%s): size %u, the %s profile "
				      "expects %u", p->iro_idx[n], iro_names[n], size, p->name,
				      p->iro_size[n]);
	}
	return ECORE_SUCCESS;
}

static enum _ecore_status_t
parse_overlays(struct parse_ctx *c)
{
	struct ecore_fw_image *img = c->img;
	const struct ecore_fw_view *b = &img->buf[ECORE_FW_BUF_OVERLAYS];
	uint32_t off = 0;

	while (off < b->len) {
		uint32_t hdr = omni_get_le32(b->p + off);
		uint32_t storm = hdr & 0xff, n_dw = hdr >> 8;

		if (storm >= ECORE_FW_STORM__MAX)
			return refuse(c, "INIT_OVERLAYS at byte %u: storm id %u (max %u)", off,
				      storm, ECORE_FW_STORM__MAX - 1);
		if (img->overlay[storm].data != NULL)
			return refuse(c, "INIT_OVERLAYS at byte %u: second buffer for storm %u",
				      off, storm);
		if ((uint64_t)n_dw * 4 > b->len - off - 4)
			return refuse(c, "INIT_OVERLAYS at byte %u: storm %u buffer of %u dwords "
				      "past the end (%u bytes)", off, storm, n_dw, b->len);
		img->overlay[storm].data = b->p + off + 4;
		img->overlay[storm].n_dw = n_dw;
		off += 4 + 4 * n_dw;
	}
	return ECORE_SUCCESS;
}

static enum _ecore_status_t
inflate_array(struct parse_ctx *c, uint32_t op, uint32_t arr, uint32_t csize, uint32_t *n_dw)
{
	struct ecore_fw_image *img = c->img;
	struct ecore_fw_zipped *z;
	z_stream zs;
	int ret;

	memset(&zs, 0, sizeof(zs));
	zs.next_in = (Bytef *)(uintptr_t)(img->buf[ECORE_FW_BUF_INIT_VAL].p + 4u * (arr + 1));
	zs.avail_in = csize;
	zs.next_out = c->scratch;
	zs.avail_out = ECORE_FW_ZIPPED_MAX_BYTES;
	if (inflateInit(&zs) != Z_OK)
		return ECORE_NOMEM;
	ret = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	if (ret != Z_STREAM_END) {
		if (ret == Z_MEM_ERROR)
			return ECORE_NOMEM;
		if (zs.avail_out == 0)
			return refuse(c, "INIT_CMD op %u: zipped array at INIT_VAL dword 0x%x "
				      "inflates past %u bytes", op, arr, ECORE_FW_ZIPPED_MAX_BYTES);
		if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT)
			return refuse(c, "INIT_CMD op %u: zipped array at INIT_VAL dword 0x%x: "
				      "corrupt zlib stream (%s)", op, arr,
				      zs.msg != NULL ? zs.msg : "bad data");
		return refuse(c, "INIT_CMD op %u: zipped array at INIT_VAL dword 0x%x: zlib "
			      "stream ends early (%u bytes)", op, arr, csize);
	}
	if (zs.total_out % 4 != 0)
		return refuse(c, "INIT_CMD op %u: zipped array at INIT_VAL dword 0x%x inflates "
			      "to %lu bytes, not whole dwords", op, arr, zs.total_out);
	if (img->n_zipped == c->zipped_cap) {
		uint32_t cap = c->zipped_cap ? 2 * c->zipped_cap : 64;
		struct ecore_fw_zipped *nz = realloc(img->zipped, cap * sizeof(*nz));

		if (nz == NULL)
			return ECORE_NOMEM;
		img->zipped = nz;
		c->zipped_cap = cap;
	}
	z = &img->zipped[img->n_zipped];
	z->val_dw = arr;
	z->n_dw = zs.total_out / 4;
	z->data = ecore_osal_zalloc(zs.total_out ? zs.total_out : 1);
	if (z->data == NULL)
		return ECORE_NOMEM;
	memcpy(z->data, c->scratch, zs.total_out);
	img->n_zipped++;
	*n_dw = z->n_dw;
	return ECORE_SUCCESS;
}

static int
zipped_cmp(const void *a, const void *b)
{
	const struct ecore_fw_zipped *x = a, *y = b;

	return x->val_dw < y->val_dw ? -1 : x->val_dw > y->val_dw;
}

const uint8_t *
ecore_fw_zipped_data(const struct ecore_fw_image *img, uint32_t val_dw, uint32_t *n_dw)
{
	uint32_t lo = 0, hi = img->n_zipped;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (img->zipped[mid].val_dw == val_dw) {
			*n_dw = img->zipped[mid].n_dw;
			return img->zipped[mid].data;
		}
		if (img->zipped[mid].val_dw < val_dw)
			lo = mid + 1;
		else
			hi = mid;
	}
	*n_dw = 0;
	return NULL;
}

/* The dwords an ARRAY write puts on the device; checks the array. */
static enum _ecore_status_t
parse_array(struct parse_ctx *c, uint32_t op, uint32_t arr, uint64_t *n_dw)
{
	struct ecore_fw_image *img = c->img;
	uint32_t val_len = img->buf[ECORE_FW_BUF_INIT_VAL].len;
	uint32_t total_dw = val_len / 4, hdr, type, size;
	enum _ecore_status_t rc;
	bool first;

	if (arr >= total_dw)
		return refuse(c, "INIT_CMD op %u: array offset 0x%" PRIx64 " past INIT_VAL "
			      "(%u bytes)", op, (uint64_t)arr * 4, val_len);
	first = !(c->seen[arr / 8] & (1u << (arr % 8)));
	hdr = val_dw(img, arr);
	type = ECORE_INIT_ARR_TYPE(hdr);
	switch (type) {
	case ECORE_INIT_ARR_STANDARD:
		size = hdr >> 4;
		if ((uint64_t)arr + 1 + size > total_dw)
			return refuse(c, "INIT_CMD op %u: standard array at 0x%x of %u dwords past "
				      "INIT_VAL (%u bytes)", op, arr * 4, size, val_len);
		*n_dw = size;
		break;
	case ECORE_INIT_ARR_ZIPPED:
		size = hdr >> 4;
		if ((uint64_t)(arr + 1) * 4 + size > val_len)
			return refuse(c, "INIT_CMD op %u: zipped array at 0x%x of %u bytes past "
				      "INIT_VAL (%u bytes)", op, arr * 4, size, val_len);
		if (first) {
			uint32_t out = 0;

			rc = inflate_array(c, op, arr, size, &out);
			if (rc != ECORE_SUCCESS)
				return rc;
			*n_dw = out;
		} else {
			uint32_t i;

			/* Not sorted yet: a linear look (few distinct arrays). */
			for (i = 0; i < img->n_zipped; i++)
				if (img->zipped[i].val_dw == arr)
					*n_dw = img->zipped[i].n_dw;
		}
		break;
	case ECORE_INIT_ARR_PATTERN:
		size = (hdr >> 4) & 0xf;
		if (size == 0)
			return refuse(c, "INIT_CMD op %u: pattern array at 0x%x has 0 dwords", op,
				      arr * 4);
		if ((uint64_t)arr + 1 + size > total_dw)
			return refuse(c, "INIT_CMD op %u: pattern array at 0x%x of %u dwords past "
				      "INIT_VAL (%u bytes)", op, arr * 4, size, val_len);
		*n_dw = (uint64_t)size * (hdr >> 8);
		break;
	default:
		return refuse(c, "INIT_CMD op %u: array at 0x%x has type %u (0-2 known)", op,
			      arr * 4, type);
	}
	img->n_array_refs[type]++;
	if (first) {
		c->seen[arr / 8] |= 1u << (arr % 8);
		img->n_arrays[type]++;
	}
	return ECORE_SUCCESS;
}

static enum _ecore_status_t
parse_write(struct parse_ctx *c, uint32_t op, uint32_t d0, uint32_t d1)
{
	struct ecore_fw_image *img = c->img;
	uint32_t src = ECORE_INIT_OP_SRC(d0), addr_dw = d0 >> 9;
	uint64_t n_dw = 0;
	enum _ecore_status_t rc;

	switch (src) {
	case ECORE_INIT_SRC_INLINE:
		n_dw = 1;
		break;
	case ECORE_INIT_SRC_ZEROS:
		n_dw = d1;
		break;
	case ECORE_INIT_SRC_ARRAY:
		rc = parse_array(c, op, d1, &n_dw);
		if (rc != ECORE_SUCCESS)
			return rc;
		break;
	case ECORE_INIT_SRC_RUNTIME: {
		uint32_t size = d1 & 0xffff, rt = d1 >> 16;

		if (rt + size > img->profile->rt_size)
			return refuse(c, "INIT_CMD op %u: runtime entries %u..%u past the %s "
				      "runtime array (%u)", op, rt, rt + size - 1,
				      img->profile->name, img->profile->rt_size);
		n_dw = size;
		break;
	}
	default:
		return refuse(c, "INIT_CMD op %u: WRITE source %u (0-3 known)", op, src);
	}
	if (addr_dw + n_dw > ECORE_INIT_GRC_DW)
		return refuse(c, "INIT_CMD op %u: write of %" PRIu64 " dwords at 0x%x runs past "
			      "the GRC space (0x%x)", op, n_dw, addr_dw * 4, ECORE_INIT_GRC_DW * 4);
	img->max_write_dw += n_dw;
	return ECORE_SUCCESS;
}

static enum _ecore_status_t
parse_ops(struct parse_ctx *c)
{
	struct ecore_fw_image *img = c->img;
	const struct ecore_fw_view *tree = &img->buf[ECORE_FW_BUF_MODE_TREE];
	enum _ecore_status_t rc;
	uint32_t i;

	for (i = 0; i < img->n_ops; i++) {
		const uint8_t *o = img->buf[ECORE_FW_BUF_INIT_CMD].p + 8u * i;
		uint32_t d0 = omni_get_le32(o), d1 = omni_get_le32(o + 4);
		uint32_t type = ECORE_INIT_OP_TYPE(d0), skip = ECORE_INIT_OP_SKIP(d0);

		switch (type) {
		case ECORE_INIT_OP_READ:
			if (ECORE_INIT_OP_POLL(d0) >= ECORE_INIT_POLL__MAX)
				return refuse(c, "INIT_CMD op %u: READ poll type %u (0-3 known)", i,
					      ECORE_INIT_OP_POLL(d0));
			break;
		case ECORE_INIT_OP_WRITE:
			rc = parse_write(c, i, d0, d1);
			if (rc != ECORE_SUCCESS)
				return rc;
			break;
		case ECORE_INIT_OP_IF_MODE:
			if ((uint64_t)i + skip >= img->n_ops)
				return refuse(c, "INIT_CMD op %u: IF_MODE skips %u ops past "
					      "the end (%u ops)", i, skip, img->n_ops);
			if ((d1 >> 16) >= tree->len)
				return refuse(c, "INIT_CMD op %u: mode-tree offset %u past "
					      "INIT_MODE_TREE (%u bytes)", i, d1 >> 16, tree->len);
			if (ecore_init_mode_eval(tree->p, tree->len, d1 >> 16, 0) < 0)
				return refuse(c, "INIT_CMD op %u: malformed mode expression at "
					      "INIT_MODE_TREE offset %u", i, d1 >> 16);
			break;
		case ECORE_INIT_OP_IF_PHASE:
			if ((uint64_t)i + skip >= img->n_ops)
				return refuse(c, "INIT_CMD op %u: IF_PHASE skips %u ops past "
					      "the end (%u ops)", i, skip, img->n_ops);
			if ((d1 & 0xff) >= PHASE__MAX)
				return refuse(c, "INIT_CMD op %u: IF_PHASE phase %u "
					      "(0-%u known)", i, d1 & 0xff, PHASE__MAX - 1);
			break;
		case ECORE_INIT_OP_DELAY:
			if (d1 > ECORE_INIT_DELAY_MAX_US)
				return refuse(c, "INIT_CMD op %u: DELAY of %u us (at most %u)",
					      i, d1, ECORE_INIT_DELAY_MAX_US);
			break;
		case ECORE_INIT_OP_CALLBACK:
			if ((d1 & 0xffff) != ECORE_INIT_CB_DMAE_READY)
				return refuse(c, "INIT_CMD op %u: CALLBACK id %u (only %u, "
					      "DMAE_READY, known)", i, d1 & 0xffff,
					      ECORE_INIT_CB_DMAE_READY);
			break;
		default:
			return refuse(c, "INIT_CMD op %u: op type %u (0-5 known)", i, type);
		}
	}
	return ECORE_SUCCESS;
}

void
ecore_fw_free(struct ecore_fw_image *img)
{
	uint32_t i;

	if (img == NULL)
		return;
	for (i = 0; i < img->n_zipped; i++)
		ecore_osal_free(img->zipped[i].data);
	ecore_osal_free(img->zipped);
	ecore_osal_free(img->file);
	ecore_osal_free(img);
}

enum _ecore_status_t
ecore_fw_parse(const void *data, size_t len, struct ecore_fw_image **out, char *err,
	       size_t err_len)
{
	struct parse_ctx c = { .err = err, .err_len = err_len };
	struct ecore_fw_image *img;
	enum _ecore_status_t rc;
	uint32_t dbg, first = 0;

	*out = NULL;
	if (err != NULL && err_len > 0)
		err[0] = '\0';
	if (len < 12 || len > ECORE_FW_FILE_MAX) {
		c.img = NULL;
		return refuse(&c, "file of %zu bytes (expected 12 to %u)", len, ECORE_FW_FILE_MAX);
	}
	img = ecore_osal_zalloc(sizeof(*img));
	if (img == NULL)
		return ECORE_NOMEM;
	c.img = img;
	img->file = ecore_osal_zalloc(len);
	if (img->file == NULL) {
		rc = ECORE_NOMEM;
		goto fail;
	}
	memcpy(img->file, data, len);
	img->file_len = len;
	/* The init blob sits between dword 0 and the debug section. */
	dbg = omni_get_le32(img->file);
	if (dbg < 12 || dbg > len) {
		rc = refuse(&c, "header: debug-data offset 0x%x outside the file (%zu bytes)",
			    dbg, len);
		goto fail;
	}
	rc = parse_table_head(&c, img->file + 4, dbg - 4, &first);
	if (rc == ECORE_SUCCESS)
		rc = parse_version(&c);
	if (rc == ECORE_SUCCESS)
		rc = parse_table(&c, img->file + 4, dbg - 4, first);
	if (rc == ECORE_SUCCESS)
		rc = parse_iro(&c);
	if (rc == ECORE_SUCCESS)
		rc = parse_overlays(&c);
	if (rc != ECORE_SUCCESS)
		goto fail;
	c.seen = ecore_osal_zalloc(img->buf[ECORE_FW_BUF_INIT_VAL].len / 32 + 1);
	c.scratch = ecore_osal_zalloc(ECORE_FW_ZIPPED_MAX_BYTES);
	if (c.seen == NULL || c.scratch == NULL) {
		rc = ECORE_NOMEM;
		goto fail;
	}
	rc = parse_ops(&c);
	if (rc != ECORE_SUCCESS)
		goto fail;
	if (img->n_zipped > 1)
		qsort(img->zipped, img->n_zipped, sizeof(*img->zipped), zipped_cmp);
	ecore_osal_free(c.seen);
	ecore_osal_free(c.scratch);
	*out = img;
	return ECORE_SUCCESS;
fail:
	if (rc == ECORE_NOMEM && err != NULL && err_len > 0)
		snprintf(err, err_len, "out of memory");
	ecore_osal_free(c.seen);
	ecore_osal_free(c.scratch);
	ecore_fw_free(img);
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_INIT_FW_H_
#define _ECORE_INIT_FW_H_

/**
 * @file
 * The firmware init-values file (qed_init_values_zipped-<version>.bin from
 * Debian's firmware-qlogic): our own loader.
 *
 * The file is untrusted input. ecore_fw_parse() checks everything before
 * anything runs: the buffer table, every op's fields, array headers and
 * lengths, skip counts, mode-tree expressions, runtime-array ranges, the IRO
 * table and the overlays; it inflates every zipped array (zlib, into a
 * bounded 32 KiB buffer) and keeps the result. An accepted image can be run
 * (ecore_init_ops.h) without further checks.
 *
 * What differs between firmware versions is one profile per version
 * (struct ecore_fw_profile): 8.42.2.0 (the target) and 8.59.1.0. A file of
 * any other version is refused.
 *
 * Layout (all little-endian): dword 0 = byte offset of a debug section at
 * the end; the init blob between holds a table of {offset, length} slots,
 * one per buffer (FW_VER_INFO, INIT_CMD, INIT_VAL, INIT_MODE_TREE, INIT_IRO,
 * INIT_OVERLAYS), offsets relative to the blob.
 */

#include "ecore.h"

/** The buffers of the init blob, by slot. */
enum ecore_fw_buf {
	ECORE_FW_BUF_VER_INFO,	/**< struct fw_ver_info: 16 bytes */
	ECORE_FW_BUF_INIT_CMD,	/**< init ops, 8 bytes each */
	ECORE_FW_BUF_INIT_VAL,	/**< arrays the ops reference (dword offsets) */
	ECORE_FW_BUF_MODE_TREE,	/**< mode expressions (prefix bytes) */
	ECORE_FW_BUF_IRO,	/**< internal RAM offsets, 12 bytes each */
	ECORE_FW_BUF_OVERLAYS,	/**< per-storm overlay buffers */
	ECORE_FW_BUF__MAX
};

/** Largest output of one zipped array (bytes): the inflate buffer. */
#define ECORE_FW_ZIPPED_MAX_BYTES 32768u
/** Largest file ecore_fw_load_file() reads (bytes). */
#define ECORE_FW_FILE_MAX (64u << 20)
/** Where ecore_fw_load_file(NULL, ...) looks. */
#define ECORE_FW_DEFAULT_DIR "/lib/firmware/qed"

/**
 * The IRO entries the L2 driver uses (and the overlay-address ones the
 * loader itself needs), by name; each profile says where they sit in its
 * file's table.
 */
enum ecore_iro_name {
	ECORE_IRO_MSTORM_ETH_PF_PRODS,		/**< (queue) */
	ECORE_IRO_MSTORM_ETH_VF_PRODS,		/**< (vf, vf queue) */
	ECORE_IRO_USTORM_EQE_CONS,		/**< (pf) */
	ECORE_IRO_USTORM_FLR_FINAL_ACK,		/**< (pf) */
	ECORE_IRO_USTORM_VF_PF_CHANNEL_READY,	/**< (vf) */
	ECORE_IRO_USTORM_ETH_QUEUE_ZONE,	/**< (queue zone) */
	ECORE_IRO_USTORM_COMMON_QUEUE_CONS,	/**< (queue zone) */
	ECORE_IRO_XSTORM_ETH_QUEUE_ZONE,	/**< (queue) */
	ECORE_IRO_TSTORM_ETH_RSS_UPDATE,	/**< (pf) */
	ECORE_IRO_TSTORM_PORT_STAT,		/**< (port) */
	ECORE_IRO_MSTORM_QUEUE_STAT,		/**< (stat counter) */
	ECORE_IRO_USTORM_QUEUE_STAT,		/**< (stat counter) */
	ECORE_IRO_MSTORM_ETH_PF_STAT,		/**< (pf) */
	ECORE_IRO_USTORM_ETH_PF_STAT,		/**< (pf) */
	/* storm RAM offsets of the overlay buffer addresses (8 bytes a PF) */
	ECORE_IRO_XSTORM_OVERLAY_BUF_ADDR,
	ECORE_IRO_YSTORM_OVERLAY_BUF_ADDR,
	ECORE_IRO_PSTORM_OVERLAY_BUF_ADDR,
	ECORE_IRO_TSTORM_OVERLAY_BUF_ADDR,
	ECORE_IRO_MSTORM_OVERLAY_BUF_ADDR,
	ECORE_IRO_USTORM_OVERLAY_BUF_ADDR,
	ECORE_IRO__MAX
};

/** What differs between firmware versions (one per version we run). */
struct ecore_fw_profile {
	const char *name;		/**< "8.42.2.0" */
	uint8_t major, minor, rev;	/**< matched against fw_ver_info (eng ignored) */
	uint32_t rt_size;		/**< runtime array entries */
	/**
	 * Runtime offsets are written in 8.42 numbering (ecore_rt_defs.h); an
	 * offset >= rt_shift_from moves by rt_shift_by in this version.
	 */
	uint32_t rt_shift_from;
	uint32_t rt_shift_by;
	uint16_t min_iro;		/**< entries the IRO table must have at least */
	uint8_t iro_idx[ECORE_IRO__MAX];	/**< where each named entry sits */
	uint16_t iro_size[ECORE_IRO__MAX];	/**< its size, checked at parse */
};

/** fw_ver_info. */
struct ecore_fw_version {
	uint16_t tools_ver;
	uint8_t image_id;
	uint8_t major, minor, rev, eng;
	uint32_t timestamp;
};

/** A view of @c len bytes of the image (the image owns the bytes). */
struct ecore_fw_view {
	const uint8_t *p;
	uint32_t len;
};

/** One storm's overlay buffer in INIT_OVERLAYS (header dword excluded). */
struct ecore_fw_overlay {
	const uint8_t *data;	/**< NULL: this storm has none */
	uint32_t n_dw;
};

/** Storm ids of the overlay headers (the file's numbering). */
enum ecore_fw_storm {
	ECORE_FW_STORM_T, ECORE_FW_STORM_M, ECORE_FW_STORM_U,
	ECORE_FW_STORM_X, ECORE_FW_STORM_Y, ECORE_FW_STORM_P,
	ECORE_FW_STORM__MAX
};

/* ---- the init-op format (8 bytes: two LE dwords d0, d1) ---- */

/** Op types (d0 bits 0-3). */
enum ecore_init_op_type {
	ECORE_INIT_OP_READ,	/**< d0[4:7] poll type, d0[9:31] dword address, d1 expected */
	ECORE_INIT_OP_WRITE,	/**< d0[4:6] source, d0[8] wide bus, d0[9:31] dword address */
	ECORE_INIT_OP_IF_MODE,	/**< d0[16:31] ops to skip if false, d1[16:31] tree offset */
	ECORE_INIT_OP_IF_PHASE,	/**< d0[16:31] skip, d1[0:7] phase, d1[16:31] phase id */
	ECORE_INIT_OP_DELAY,	/**< d1 microseconds */
	ECORE_INIT_OP_CALLBACK,	/**< d1[0:15] callback id, d1[16:31] block id */
	ECORE_INIT_OP__MAX
};

/** WRITE sources (d0 bits 4-6). */
enum ecore_init_src {
	ECORE_INIT_SRC_INLINE,	/**< d1 = the value */
	ECORE_INIT_SRC_ZEROS,	/**< d1 = dwords of zeros */
	ECORE_INIT_SRC_ARRAY,	/**< d1 = array offset in INIT_VAL (dwords) */
	ECORE_INIT_SRC_RUNTIME,	/**< d1 = size (low 16 bits), runtime offset (high 16) */
	ECORE_INIT_SRC__MAX
};

/** Poll types of a READ (d0 bits 4-7). */
enum ecore_init_poll {
	ECORE_INIT_POLL_NONE,
	ECORE_INIT_POLL_EQ,	/**< value == expected */
	ECORE_INIT_POLL_OR,	/**< (value | expected) != 0 */
	ECORE_INIT_POLL_AND,	/**< (value & expected) == expected */
	ECORE_INIT_POLL__MAX
};

/** Array types (INIT_VAL header dword bits 0-3). */
enum ecore_init_arr {
	ECORE_INIT_ARR_STANDARD,	/**< bits 4-31 dwords; data follows */
	ECORE_INIT_ARR_ZIPPED,		/**< bits 4-31 compressed bytes; zlib stream follows */
	ECORE_INIT_ARR_PATTERN,		/**< bits 4-7 dwords, 8-31 repetitions */
	ECORE_INIT_ARR__MAX
};

/** The one callback id: DMAE may be used from here on (ENGINE phase). */
#define ECORE_INIT_CB_DMAE_READY 0
/** GRC dword addresses have 23 bits. */
#define ECORE_INIT_GRC_DW 0x800000u
/** Longest DELAY op accepted (us). */
#define ECORE_INIT_DELAY_MAX_US 100000u

#define ECORE_INIT_OP_TYPE(d0) ((d0) & 0xfu)
#define ECORE_INIT_OP_ADDR(d0) (((d0) >> 9) << 2)	/**< byte address */
#define ECORE_INIT_OP_POLL(d0) (((d0) >> 4) & 0xfu)
#define ECORE_INIT_OP_SRC(d0) (((d0) >> 4) & 0x7u)
#define ECORE_INIT_OP_WIDE(d0) (((d0) >> 8) & 0x1u)
#define ECORE_INIT_OP_SKIP(d0) ((d0) >> 16)
#define ECORE_INIT_ARR_TYPE(h) ((h) & 0xfu)

struct ecore_fw_zipped;

/** A parsed and checked init-values file. */
struct ecore_fw_image {
	struct ecore_fw_version ver;		/**< as the file says */
	const struct ecore_fw_profile *profile;	/**< the profile in use */
	uint32_t n_slots;			/**< buffer slots in the table */
	struct ecore_fw_view buf[ECORE_FW_BUF__MAX];	/**< each buffer */
	uint32_t n_ops;				/**< INIT_CMD ops (8 bytes each) */
	uint32_t n_iro;				/**< IRO entries (12 bytes each) */
	struct ecore_fw_overlay overlay[ECORE_FW_STORM__MAX];
	/** Arrays the WRITE ops reference, by type (standard, zipped, pattern), distinct. */
	uint32_t n_arrays[3];
	/** ARRAY writes by the type of array they reference (an array may serve several). */
	uint32_t n_array_refs[3];
	/** Dwords all WRITE ops write at most (runtime ones counted in full). */
	uint64_t max_write_dw;

	/* private */
	uint8_t *file;				/**< our copy of the file */
	size_t file_len;
	struct ecore_fw_zipped *zipped;		/**< inflated arrays, by INIT_VAL offset */
	uint32_t n_zipped;
};

/**
 * Parse and check an init-values file.
 *
 * @param data, len  the file (copied: the caller keeps its buffer).
 * @param out        the image on success (free with ecore_fw_free()).
 * @param err        a one-line reason on refusal (what and where), or NULL.
 * @param err_len    size of @p err.
 * @return 0, ECORE_INVAL (refused: @p err says why) or ECORE_NOMEM.
 */
enum _ecore_status_t ecore_fw_parse(const void *data, size_t len, struct ecore_fw_image **out,
				    char *err, size_t err_len);

/** Free an image (NULL is fine). */
void ecore_fw_free(struct ecore_fw_image *img);

/**
 * Read and parse the file at @p path; NULL: the first of
 * ECORE_FW_DEFAULT_DIR/qed_init_values_zipped-<version>.bin for the profiles
 * we have, in order (8.42.2.0, then 8.59.1.0). Implemented by the
 * environment (e4_fw.c).
 *
 * @return 0, ECORE_NODEV (no file; @p err names where it looked),
 *         ECORE_IO (unreadable), ECORE_INVAL (refused) or ECORE_NOMEM.
 */
enum _ecore_status_t ecore_fw_load_file(const char *path, struct ecore_fw_image **out,
					char *err, size_t err_len);

/** The profiles we have, in order of preference; @p n gets their number. */
const struct ecore_fw_profile *ecore_fw_profiles(unsigned int *n);

/** The file name of a profile's version: "qed_init_values_zipped-8.42.2.0.bin". */
int ecore_fw_file_name(const struct ecore_fw_profile *p, char *buf, size_t len);

/**
 * Storm-RAM offset of IRO entry @p n: base + i1 * m1 + i2 * m2 + i3 * m3,
 * from the file's table.
 */
uint32_t ecore_iro_addr(const struct ecore_fw_image *img, enum ecore_iro_name n,
			uint32_t i1, uint32_t i2, uint32_t i3);
/** Size in bytes of one element of IRO entry @p n. */
uint16_t ecore_iro_size(const struct ecore_fw_image *img, enum ecore_iro_name n);
/** Name of an IRO entry ("USTORM_EQE_CONS"). */
const char *ecore_iro_name_str(enum ecore_iro_name n);

/**
 * The inflated data of the zipped array at INIT_VAL dword offset @p val_dw
 * (LE dwords) and its length in dwords, or NULL if the image has none there.
 */
const uint8_t *ecore_fw_zipped_data(const struct ecore_fw_image *img, uint32_t val_dw,
				    uint32_t *n_dw);

/**
 * Evaluate the mode expression at byte @p off of @p tree (prefix notation:
 * 0 NOT, 1 OR, 2 AND, n >= 3 mode bit n - 3) for the mode mask @p modes.
 *
 * @return 1 true, 0 false, -1 malformed (offset past the tree, expression
 *         running past its end, mode bit above 31, more than 64 pending
 *         operands).
 */
int ecore_init_mode_eval(const uint8_t *tree, size_t len, uint32_t off, uint32_t modes);

#endif /* _ECORE_INIT_FW_H_ */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Running the init file on an I/O sink (the device's is in ecore_init_dev.c),
 * the mode mask, the runtime array and the storm overlays. The image was
 * checked whole by ecore_fw_parse(): nothing here re-checks file data.
 */

#include "ecore_hw.h"
#include "ecore_init_ops.h"
#include "ecore_reg.h"

static const char *const phase_names[PHASE__MAX] = {
	"ENGINE", "PORT", "PF", "VF", "QM_PF",
};

static const char *const poll_names[ECORE_INIT_POLL__MAX] = {
	"NONE", "EQ", "OR", "AND",
};

const char *
ecore_init_phase_str(int phase)
{
	return phase >= 0 && phase < PHASE__MAX ? phase_names[phase] : "?";
}

uint32_t
ecore_init_mode_mask(const struct ecore_dev *p_dev)
{
	uint32_t m = 1u << ECORE_MODE_ASIC | 1u << ECORE_MODE_MF_SI;

	m |= 1u << (ECORE_IS_BB(p_dev) ? ECORE_MODE_BB : ECORE_MODE_K2);
	switch (p_dev->num_ports_in_engine) {
	case 4:
		m |= 1u << ECORE_MODE_PORTS_PER_ENG_4;
		break;
	case 2:
		m |= 1u << ECORE_MODE_PORTS_PER_ENG_2;
		break;
	default:
		m |= 1u << ECORE_MODE_PORTS_PER_ENG_1;
		break;
	}
	if (p_dev->num_hwfns > 1)
		m |= 1u << ECORE_MODE_100G;
	return m;
}

/* ---- the runner ---- */

struct run {
	const struct ecore_fw_image *img;
	const struct ecore_init_sink *sink;
	const struct ecore_rt_data *rt;
	struct ecore_init_run_stats *st;
	int phase;
	bool dmae;	/* DMAE allowed (after DMAE_READY in the ENGINE phase) */
};

/* Write @p n_dw LE dwords: one DMAE transfer or register writes. */
static int
put_block(struct run *r, uint32_t addr, const uint8_t *le, uint32_t n_dw, bool by_dmae)
{
	const struct ecore_init_sink *s = r->sink;
	uint32_t j;

	if (by_dmae) {
		r->st->dmae_writes++;
		r->st->dmae_bytes += 4ull * n_dw;
		return s->dmae_write(s->ctx, addr, le, n_dw);
	}
	for (j = 0; j < n_dw; j++)
		s->write(s->ctx, addr + 4 * j, omni_get_le32(le + 4 * j));
	r->st->reg_writes += n_dw;
	return 0;
}

static int
put_zeros(struct run *r, uint32_t addr, uint32_t n_dw, bool wide)
{
	const struct ecore_init_sink *s = r->sink;
	uint32_t j;

	if (wide || (r->dmae && n_dw >= ECORE_INIT_DMAE_MIN_FILL)) {
		r->st->dmae_fills++;
		r->st->dmae_bytes += 4ull * n_dw;
		return s->fill(s->ctx, addr, 0, n_dw);
	}
	for (j = 0; j < n_dw; j++)
		s->write(s->ctx, addr + 4 * j, 0);
	r->st->reg_writes += n_dw;
	return 0;
}

static int
put_array(struct run *r, uint32_t addr, uint32_t arr, bool wide, uint64_t *bytes)
{
	const uint8_t *val = r->img->buf[ECORE_FW_BUF_INIT_VAL].p;
	uint32_t hdr = omni_get_le32(val + 4u * arr), n_dw, reps, i;
	uint32_t type = ECORE_INIT_ARR_TYPE(hdr);
	const uint8_t *data;
	int rc = 0;

	r->st->arrays_by_type[type]++;
	switch (type) {
	case ECORE_INIT_ARR_STANDARD:
		n_dw = hdr >> 4;
		data = val + 4u * (arr + 1);
		break;
	case ECORE_INIT_ARR_ZIPPED:
		data = ecore_fw_zipped_data(r->img, arr, &n_dw);
		break;
	default:	/* PATTERN: one transfer per repetition */
		n_dw = (hdr >> 4) & 0xf;
		reps = hdr >> 8;
		data = val + 4u * (arr + 1);
		for (i = 0; i < reps && rc == 0; i++, addr += 4 * n_dw)
			rc = put_block(r, addr, data, n_dw,
				       r->dmae && (wide || n_dw >= ECORE_INIT_DMAE_MIN_ARRAY));
		*bytes = 4ull * n_dw * reps;
		return rc;
	}
	*bytes = 4ull * n_dw;
	return put_block(r, addr, data, n_dw,
			 r->dmae && (wide || n_dw >= ECORE_INIT_DMAE_MIN_ARRAY));
}

/* Valid runtime entries only; wide-bus ones by DMAE in contiguous runs. */
static int
put_runtime(struct run *r, uint32_t addr, uint32_t rt_off, uint32_t size, bool wide,
	    uint64_t *bytes)
{
	const struct ecore_rt_data *rt = r->rt;
	uint32_t i, run;
	int rc;

	*bytes = 0;
	if (rt == NULL)
		return 0;
	for (i = 0; i < size; i++) {
		if (!rt->b_valid[rt_off + i])
			continue;
		if (!wide) {
			r->sink->write(r->sink->ctx, addr + 4 * i,
				       omni_get_le32(&rt->init_val[rt_off + i]));
			r->st->reg_writes++;
			*bytes += 4;
			continue;
		}
		for (run = 1; i + run < size && rt->b_valid[rt_off + i + run]; run++)
			;
		rc = put_block(r, addr + 4 * i, (const uint8_t *)&rt->init_val[rt_off + i], run,
			       true);
		if (rc != 0)
			return rc;
		*bytes += 4ull * run;
		i += run;	/* the entry after the run is invalid (or the end) */
	}
	return 0;
}

static int
run_write(struct run *r, uint32_t op, uint32_t d0, uint32_t d1)
{
	uint32_t src = ECORE_INIT_OP_SRC(d0), addr = ECORE_INIT_OP_ADDR(d0);
	bool wide = ECORE_INIT_OP_WIDE(d0);
	uint64_t bytes = 0;
	int rc = 0;

	if (wide && !r->dmae) {
		ECORE_LOG(ERR, "phase %s, op %u: wide-bus write to 0x%x before DMAE is ready",
			  ecore_init_phase_str(r->phase), op, addr);
		return ECORE_INVAL;
	}
	r->st->writes++;
	r->st->writes_by_src[src]++;
	switch (src) {
	case ECORE_INIT_SRC_INLINE:
		r->sink->write(r->sink->ctx, addr, d1);
		r->st->reg_writes++;
		bytes = 4;
		break;
	case ECORE_INIT_SRC_ZEROS:
		rc = put_zeros(r, addr, d1, wide);
		bytes = 4ull * d1;
		break;
	case ECORE_INIT_SRC_ARRAY:
		rc = put_array(r, addr, d1, wide, &bytes);
		break;
	default:
		rc = put_runtime(r, addr, d1 >> 16, d1 & 0xffff, wide, &bytes);
		break;
	}
	r->st->bytes += bytes;
	r->st->bytes_by_src[src] += bytes;
	return rc;
}

static bool
poll_done(int type, uint32_t val, uint32_t expected)
{
	switch (type) {
	case ECORE_INIT_POLL_EQ:
		return val == expected;
	case ECORE_INIT_POLL_OR:
		return (val | expected) != 0;
	default:
		return (val & expected) == expected;
	}
}

static int
run_read(struct run *r, uint32_t op, uint32_t d0, uint32_t expected)
{
	const struct ecore_init_sink *s = r->sink;
	uint32_t addr = ECORE_INIT_OP_ADDR(d0), val = 0;
	int type = ECORE_INIT_OP_POLL(d0);
	unsigned int tries = 0;
	bool done;

	r->st->reads++;
	if (type == ECORE_INIT_POLL_NONE) {
		s->read(s->ctx, addr);
		return 0;
	}
	r->st->polls++;
	if (s->poll != NULL) {
		done = s->poll(s->ctx, addr, expected, type);
	} else {
		val = s->read(s->ctx, addr);
		while (!(done = poll_done(type, val, expected)) && tries < ECORE_INIT_POLL_TRIES) {
			if (s->delay != NULL)
				s->delay(s->ctx, ECORE_INIT_POLL_US);
			val = s->read(s->ctx, addr);
			tries++;
		}
	}
	if (done)
		return 0;
	r->st->poll_timeouts++;
	ECORE_LOG(ERR, "phase %s, op %u: poll of 0x%08x (%s 0x%x) never completed: read 0x%x "
		  "after %u retries %u us apart", ecore_init_phase_str(r->phase), op, addr,
		  poll_names[type], expected, val, tries, ECORE_INIT_POLL_US);
	return ECORE_TIMEOUT;
}

enum _ecore_status_t
ecore_init_run_sink(const struct ecore_fw_image *img, const struct ecore_init_sink *sink,
		    int phase, int phase_id, uint32_t modes, const struct ecore_rt_data *rt,
		    struct ecore_init_run_stats *st)
{
	const struct ecore_fw_view *tree = &img->buf[ECORE_FW_BUF_MODE_TREE];
	const uint8_t *ops = img->buf[ECORE_FW_BUF_INIT_CMD].p;
	struct ecore_init_run_stats local;
	struct run r = {
		.img = img, .sink = sink, .rt = rt, .st = st != NULL ? st : &local,
		.phase = phase, .dmae = phase != PHASE_ENGINE,
	};
	uint32_t i;
	int rc = 0;

	memset(&local, 0, sizeof(local));
	if (rt != NULL && rt->size != img->profile->rt_size) {
		ECORE_LOG(ERR, "runtime array of %u entries for a %s image (%u)", rt->size,
			  img->profile->name, img->profile->rt_size);
		return ECORE_INVAL;
	}
	for (i = 0; i < img->n_ops && rc == 0; i++) {
		uint32_t d0 = omni_get_le32(ops + 8u * i), d1 = omni_get_le32(ops + 8u * i + 4);
		uint32_t skip = ECORE_INIT_OP_SKIP(d0);

		r.st->ops++;
		switch (ECORE_INIT_OP_TYPE(d0)) {
		case ECORE_INIT_OP_READ:
			rc = run_read(&r, i, d0, d1);
			break;
		case ECORE_INIT_OP_WRITE:
			rc = run_write(&r, i, d0, d1);
			break;
		case ECORE_INIT_OP_IF_MODE:
			if (ecore_init_mode_eval(tree->p, tree->len, d1 >> 16, modes) <= 0)
				i += skip;
			break;
		case ECORE_INIT_OP_IF_PHASE:
			if ((int)(d1 & 0xff) != phase ||
			    ((d1 >> 16) != ECORE_INIT_PHASE_ID_ANY && (int)(d1 >> 16) != phase_id))
				i += skip;
			break;
		case ECORE_INIT_OP_DELAY:
			r.st->delays++;
			if (sink->delay != NULL)
				sink->delay(sink->ctx, d1);
			break;
		default:	/* CALLBACK: DMAE_READY, the only one the parser accepts */
			r.st->callbacks++;
			if (sink->callback != NULL)
				rc = sink->callback(sink->ctx, d1 & 0xffff, d1 >> 16);
			if (rc == 0)
				r.dmae = true;
			break;
		}
	}
	return rc;
}

/* ---- the runtime array ---- */

uint32_t
ecore_init_rt_index(const struct ecore_fw_profile *p, uint32_t rt_offset)
{
	if (p->rt_shift_by != 0 && rt_offset >= p->rt_shift_from) {
		if (rt_offset > UINT32_MAX - p->rt_shift_by)
			return UINT32_MAX;
		rt_offset += p->rt_shift_by;
	}
	return rt_offset < p->rt_size ? rt_offset : UINT32_MAX;
}

enum _ecore_status_t
ecore_init_alloc(struct ecore_hwfn *p_hwfn)
{
	const struct ecore_fw_image *img = p_hwfn->p_dev->fw;
	struct ecore_rt_data *rt;

	if (img == NULL) {
		ECORE_LOG(ERR, "%s: no firmware image to size the runtime array", p_hwfn->name);
		return ECORE_INVAL;
	}
	if (p_hwfn->rt_data != NULL)
		ecore_init_free(p_hwfn);
	rt = ecore_osal_zalloc(sizeof(*rt));
	if (rt == NULL)
		return ECORE_NOMEM;
	rt->size = img->profile->rt_size;
	rt->b_valid = ecore_osal_zalloc(rt->size * sizeof(*rt->b_valid));
	rt->init_val = ecore_osal_zalloc(rt->size * sizeof(*rt->init_val));
	if (rt->b_valid == NULL || rt->init_val == NULL) {
		ecore_osal_free(rt->b_valid);
		ecore_osal_free(rt->init_val);
		ecore_osal_free(rt);
		return ECORE_NOMEM;
	}
	p_hwfn->rt_data = rt;
	return ECORE_SUCCESS;
}

void
ecore_init_free(struct ecore_hwfn *p_hwfn)
{
	struct ecore_rt_data *rt = p_hwfn->rt_data;

	if (rt == NULL)
		return;
	ecore_init_overlays_free(p_hwfn);
	ecore_osal_free(rt->b_valid);
	ecore_osal_free(rt->init_val);
	ecore_osal_free(rt);
	p_hwfn->rt_data = NULL;
}

void
ecore_init_clear_rt_data(struct ecore_hwfn *p_hwfn)
{
	struct ecore_rt_data *rt = p_hwfn->rt_data;

	if (rt != NULL)
		memset(rt->b_valid, 0, rt->size * sizeof(*rt->b_valid));
}

void
ecore_init_store_rt_reg(struct ecore_hwfn *p_hwfn, uint32_t rt_offset, uint32_t val)
{
	struct ecore_rt_data *rt = p_hwfn->rt_data;
	uint32_t i;

	if (rt == NULL || p_hwfn->p_dev->fw == NULL) {
		ECORE_LOG(ERR, "%s: no runtime array: runtime offset %u := 0x%x dropped",
			  p_hwfn->name, rt_offset, val);
		return;
	}
	i = ecore_init_rt_index(p_hwfn->p_dev->fw->profile, rt_offset);
	if (i == UINT32_MAX) {
		ECORE_LOG(ERR, "%s: runtime offset %u is outside the %s array (%u): 0x%x dropped",
			  p_hwfn->name, rt_offset, p_hwfn->p_dev->fw->profile->name, rt->size,
			  val);
		return;
	}
	rt->init_val[i] = OMNI_LE32(val);	/* device order: DMAE takes it as is */
	rt->b_valid[i] = true;
}

void
ecore_init_store_rt_agg(struct ecore_hwfn *p_hwfn, uint32_t rt_offset, const uint32_t *vals,
			size_t n_dw)
{
	size_t i;

	for (i = 0; i < n_dw; i++)
		ecore_init_store_rt_reg(p_hwfn, rt_offset + i, vals[i]);
}

/* ---- overlays ---- */

uint32_t
ecore_init_overlay_ram_addr(const struct ecore_fw_image *img, enum ecore_fw_storm storm,
			    uint8_t rel_pf_id)
{
	static const struct {
		uint32_t fast_mem;
		enum ecore_iro_name iro;
	} storms[ECORE_FW_STORM__MAX] = {
		[ECORE_FW_STORM_T] = { TSEM_REG_FAST_MEMORY, ECORE_IRO_TSTORM_OVERLAY_BUF_ADDR },
		[ECORE_FW_STORM_M] = { MSEM_REG_FAST_MEMORY, ECORE_IRO_MSTORM_OVERLAY_BUF_ADDR },
		[ECORE_FW_STORM_U] = { USEM_REG_FAST_MEMORY, ECORE_IRO_USTORM_OVERLAY_BUF_ADDR },
		[ECORE_FW_STORM_X] = { XSEM_REG_FAST_MEMORY, ECORE_IRO_XSTORM_OVERLAY_BUF_ADDR },
		[ECORE_FW_STORM_Y] = { YSEM_REG_FAST_MEMORY, ECORE_IRO_YSTORM_OVERLAY_BUF_ADDR },
		[ECORE_FW_STORM_P] = { PSEM_REG_FAST_MEMORY, ECORE_IRO_PSTORM_OVERLAY_BUF_ADDR },
	};

	if ((unsigned int)storm >= ECORE_FW_STORM__MAX)
		return 0;
	return storms[storm].fast_mem + SEM_FAST_REG_INT_RAM +
		ecore_iro_addr(img, storms[storm].iro, 0, 0, 0) + 8u * rel_pf_id;
}

void
ecore_init_overlays_free(struct ecore_hwfn *p_hwfn)
{
	struct ecore_rt_data *rt = p_hwfn->rt_data;
	unsigned int s;

	if (rt == NULL)
		return;
	for (s = 0; s < ECORE_FW_STORM__MAX; s++)
		ecore_osal_dma_free(&rt->overlay[s]);
}

enum _ecore_status_t
ecore_init_overlays_load(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	const struct ecore_fw_image *img = p_hwfn->p_dev->fw;
	struct ecore_rt_data *rt = p_hwfn->rt_data;
	unsigned int s;

	if (img == NULL || rt == NULL) {
		ECORE_LOG(ERR, "%s: overlays need the image and ecore_init_alloc()", p_hwfn->name);
		return ECORE_INVAL;
	}
	ecore_init_overlays_free(p_hwfn);
	for (s = 0; s < ECORE_FW_STORM__MAX; s++) {
		const struct ecore_fw_overlay *ov = &img->overlay[s];
		struct ecore_dma_mem *m = &rt->overlay[s];
		uint32_t ram;

		if (ov->data == NULL || ov->n_dw == 0)
			continue;
		if (ecore_osal_dma_alloc(m, p_hwfn->p_dev->name, "ovl", p_hwfn->my_id * 8 + s,
					 4u * ov->n_dw, 4096) != 0) {
			ecore_init_overlays_free(p_hwfn);
			return ECORE_NOMEM;
		}
		memcpy(m->va, ov->data, 4u * ov->n_dw);
		ecore_osal_wmb();
		ram = ecore_init_overlay_ram_addr(img, s, p_hwfn->rel_pf_id);
		ecore_wr(p_hwfn, p_ptt, ram, (uint32_t)m->iova);
		ecore_wr(p_hwfn, p_ptt, ram + 4, (uint32_t)(m->iova >> 32));
	}
	return ECORE_SUCCESS;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Protection domains, memory regions, completion queues, address handles. */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include <omni_mbuf.h>

#include "roce_internal.h"

#define NULL_ERR(dev, e, ...) \
	do { roce_err(dev, e, __VA_ARGS__); rte_errno = (e); return NULL; } while (0)

/* ---------------- PD ---------------- */

struct roce_pd *
roce_pd_alloc(struct roce_dev *dev)
{
	struct roce_pd *pd;
	int idx;

	pd = rte_zmalloc_socket("roce_pd", sizeof(*pd), 0, dev->conf.socket_id);
	if (pd == NULL)
		NULL_ERR(dev, ENOMEM, "no memory for a PD");
	idx = roce_tbl_alloc(&dev->pds, pd);
	if (idx < 0) {
		rte_free(pd);
		NULL_ERR(dev, ENOSPC, "PD limit (%u) reached", dev->lim.max_pd);
	}
	pd->dev = dev;
	pd->handle = (uint32_t)idx + 1;
	return pd;
}

int
roce_pd_free(struct roce_pd *pd)
{
	if (pd->refs != 0)
		return roce_err(pd->dev, EBUSY, "PD %u is used by %u objects", pd->handle, pd->refs);
	roce_tbl_free(&pd->dev->pds, pd->handle - 1);
	rte_free(pd);
	return 0;
}

uint32_t
roce_pd_handle(const struct roce_pd *pd)
{
	return pd->handle;
}

struct roce_pd *
roce_pd_get(struct roce_dev *dev, uint32_t h)
{
	return h == 0 ? NULL : roce_tbl_get(&dev->pds, h - 1);
}

/* ---------------- MR ---------------- */

#define ACCESS_ALL (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | \
		    ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC)

static int
mr_translate(struct roce_mr *mr, uint8_t **table)
{
	const uint32_t psize = 1u << mr->page_shift;
	uint32_t i;

	for (i = 0; i < mr->nb_pages; i++) {
		uint64_t contig = 0;
		void *va = mr->xlate(mr->xlate_ctx, mr->page_addr[i], psize, &contig);

		if (va == NULL || contig < psize)
			return -EFAULT;
		table[i] = va;
	}
	return 0;
}

struct roce_mr *
roce_mr_reg(struct roce_pd *pd, const struct roce_mr_conf *c)
{
	struct roce_dev *dev = pd->dev;
	struct roce_mr *mr;
	int idx;

	if (c->length == 0 || c->length > dev->lim.max_mr_size)
		NULL_ERR(dev, EINVAL, "MR length %" PRIu64 " is not in 1..%" PRIu64,
			 c->length, dev->lim.max_mr_size);
	if (c->access & ~ACCESS_ALL)
		NULL_ERR(dev, EINVAL, "MR access 0x%x has unknown bits", c->access);
	/* IBA: remote write and atomic need local write */
	if ((c->access & (ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_ATOMIC)) &&
	    !(c->access & ROCE_ACCESS_LOCAL_WRITE))
		NULL_ERR(dev, EINVAL, "MR remote write/atomic access needs local write");
	if (c->iova + c->length < c->iova)
		NULL_ERR(dev, EINVAL, "MR iova + length wraps");
	if (c->host != NULL && c->pages != NULL)
		NULL_ERR(dev, EINVAL, "MR takes host or pages, not both");
	if (c->host == NULL && c->pages == NULL && c->xlate == NULL)
		NULL_ERR(dev, EINVAL, "MR needs host, pages or xlate");
	if (c->pages != NULL) {
		uint64_t first_off, span;

		if (c->xlate == NULL || c->page_size < 4096 || c->page_size > (1u << 30) ||
		    !rte_is_power_of_2(c->page_size))
			NULL_ERR(dev, EINVAL, "MR pages need xlate and a power-of-two page_size "
				 "in 4096..1 GiB");
		first_off = c->iova & (c->page_size - 1);
		span = (first_off + c->length + c->page_size - 1) / c->page_size;
		if (c->nb_pages == 0 || span > c->nb_pages)
			NULL_ERR(dev, EINVAL, "MR of %" PRIu64 " bytes at offset %" PRIu64
				 " needs %" PRIu64 " pages, %u given", c->length, first_off, span,
				 c->nb_pages);
	}
	mr = rte_zmalloc_socket("roce_mr", sizeof(*mr), 0, dev->conf.socket_id);
	if (mr == NULL)
		NULL_ERR(dev, ENOMEM, "no memory for an MR");
	mr->dev = dev;
	mr->pd = pd;
	mr->iova = c->iova;
	mr->length = c->length;
	mr->access = c->access;
	mr->host = c->host;
	if (c->host == NULL && c->pages == NULL) {
		mr->dma = true;
		mr->xlate = c->xlate;
		mr->xlate_ctx = c->xlate_ctx;
	} else if (c->pages != NULL) {
		mr->page_shift = rte_bsf32(c->page_size);
		mr->first_off = c->iova & (c->page_size - 1);
		mr->nb_pages = (uint32_t)((mr->first_off + c->length + c->page_size - 1) /
					  c->page_size);
		mr->xlate = c->xlate;
		mr->xlate_ctx = c->xlate_ctx;
		mr->page_addr = rte_malloc_socket("roce_mr_pa", sizeof(uint64_t) * mr->nb_pages,
						  0, dev->conf.socket_id);
		mr->page_va = rte_malloc_socket("roce_mr_va", sizeof(uint8_t *) * mr->nb_pages,
						0, dev->conf.socket_id);
		if (mr->page_addr == NULL || mr->page_va == NULL) {
			roce_err(dev, ENOMEM, "no memory for the MR's %u pages", mr->nb_pages);
			goto fail_errno;
		}
		memcpy(mr->page_addr, c->pages, sizeof(uint64_t) * mr->nb_pages);
		if (mr_translate(mr, mr->page_va) < 0) {
			roce_err(dev, EFAULT, "an MR page does not translate");
			rte_errno = EFAULT;
			goto fail;
		}
	}
	idx = roce_tbl_alloc(&dev->mrs, mr);
	if (idx < 0) {
		roce_err(dev, ENOSPC, "MR limit (%u) reached", dev->lim.max_mr);
		rte_errno = ENOSPC;
		goto fail;
	}
	mr->index = (uint32_t)idx;
	/* a new key byte each time a slot is reused, so stale keys miss */
	dev->mr_gen[idx]++;
	mr->lkey = mr->index << 8 | dev->mr_gen[idx];
	mr->rkey = (c->access & ~ROCE_ACCESS_LOCAL_WRITE) ? mr->lkey : 0;
	pd->refs++;
	return mr;
fail_errno:
	rte_errno = ENOMEM;
fail:
	rte_free(mr->page_addr);
	rte_free(mr->page_va);
	rte_free(mr);
	return NULL;
}

int
roce_mr_dereg(struct roce_mr *mr)
{
	mr->dev->mr_deregs++;
	roce_tbl_free(&mr->dev->mrs, mr->index);
	mr->pd->refs--;
	rte_free(mr->page_addr);
	rte_free(mr->page_va);
	rte_free(mr);
	return 0;
}

int
roce_mr_remap(struct roce_mr *mr)
{
	uint8_t **table;
	int rc;

	if (mr->page_addr == NULL)
		return 0;
	table = rte_malloc_socket("roce_mr_va", sizeof(uint8_t *) * mr->nb_pages, 0,
				  mr->dev->conf.socket_id);
	if (table == NULL)
		return roce_err(mr->dev, ENOMEM, "no memory to remap an MR");
	rc = mr_translate(mr, table);
	if (rc < 0) {
		rte_free(table);
		return roce_err(mr->dev, EFAULT, "MR 0x%x: a page no longer translates", mr->lkey);
	}
	rte_free(mr->page_va);
	mr->page_va = table;
	return 0;
}

uint32_t
roce_mr_lkey(const struct roce_mr *mr)
{
	return mr->lkey;
}

uint32_t
roce_mr_rkey(const struct roce_mr *mr)
{
	return mr->rkey;
}

struct roce_mr *
roce_mr_get(struct roce_dev *dev, uint32_t lkey)
{
	struct roce_mr *mr = roce_tbl_get(&dev->mrs, lkey >> 8);

	return mr != NULL && mr->lkey == lkey ? mr : NULL;
}

struct roce_mr *
roce_mr_lookup(struct roce_dev *dev, uint32_t key, bool remote)
{
	struct roce_mr *mr = roce_tbl_get(&dev->mrs, key >> 8);

	if (mr == NULL || (remote ? mr->rkey : mr->lkey) != key)
		return NULL;
	return mr;
}

bool
roce_mr_translates(const struct roce_mr *mr, uint64_t iova, uint64_t len)
{
	while (len > 0) {
		uint64_t contig = 0;

		if (mr->xlate(mr->xlate_ctx, iova, len, &contig) == NULL || contig == 0)
			return false;
		contig = RTE_MIN(contig, len);
		iova += contig;
		len -= contig;
	}
	return true;
}

uint8_t *
roce_mr_ptr(const struct roce_mr *mr, uint64_t iova, uint32_t want, uint32_t *contig)
{
	uint64_t off = iova - mr->iova;
	uint64_t in_page, page;

	if (unlikely(mr->dma)) {
		uint64_t n = 0;
		uint8_t *p = mr->xlate(mr->xlate_ctx, iova, want, &n);

		/* roce_mr_covers() checked this range in the same poll */
		RTE_VERIFY(p != NULL && n > 0);
		*contig = (uint32_t)RTE_MIN(n, (uint64_t)want);
		return p;
	}
	if (mr->host != NULL) {
		*contig = want;
		return mr->host + off;
	}
	off += mr->first_off;
	page = off >> mr->page_shift;
	in_page = off & ((1u << mr->page_shift) - 1);
	*contig = (uint32_t)RTE_MIN((uint64_t)want, (1ull << mr->page_shift) - in_page);
	return mr->page_va[page] + in_page;
}

/*
 * With a CRC, the copy goes this many bytes at a time, each piece run
 * through the CRC just before it is copied: one read from memory serves
 * both, and the stores of one piece drain while the next is summed.
 */
#define CRC_COPY_CHUNK 2048u

void
roce_mr_read(const struct roce_mr *mr, uint64_t iova, void *dst, uint32_t len, uint32_t *crc)
{
	uint8_t *d = dst;

	while (len > 0) {
		uint32_t n;
		const uint8_t *s = roce_mr_ptr(mr, iova, len, &n);

		if (crc != NULL) {
			uint32_t done, k;

			for (done = 0; done < n; done += k) {
				k = RTE_MIN(n - done, CRC_COPY_CHUNK);
				*crc = roce_crc32(*crc, s + done, k);
				memcpy(d + done, s + done, k);
			}
		} else {
			memcpy(d, s, n);
		}
		d += n;
		iova += n;
		len -= n;
	}
}

void
roce_mr_write(const struct roce_mr *mr, uint64_t iova, const void *src, uint32_t len)
{
	const uint8_t *s = src;

	while (len > 0) {
		uint32_t n;
		uint8_t *d = roce_mr_ptr(mr, iova, len, &n);

		memcpy(d, s, n);
		s += n;
		iova += n;
		len -= n;
	}
}

void
roce_mr_write_mbuf(const struct roce_mr *mr, uint64_t iova, const struct rte_mbuf *m,
		   uint32_t off, uint32_t len)
{
	struct omni_mbuf_span s;
	const uint8_t *p;
	uint32_t n;

	omni_mbuf_span_init(&s, m, off, len);
	while ((n = omni_mbuf_span_next(&s, &p)) > 0) {
		roce_mr_write(mr, iova, p, n);
		iova += n;
	}
}

/* ---------------- CQ ---------------- */

struct roce_cq *
roce_cq_create(struct roce_dev *dev, const struct roce_cq_conf *conf)
{
	struct roce_cq *cq;
	int idx;

	if (conf->cqe == 0 || conf->cqe > dev->lim.max_cqe)
		NULL_ERR(dev, EINVAL, "CQ of %u entries is not in 1..%u", conf->cqe,
			 dev->lim.max_cqe);
	cq = rte_zmalloc_socket("roce_cq", sizeof(*cq), 0, dev->conf.socket_id);
	if (cq == NULL)
		NULL_ERR(dev, ENOMEM, "no memory for a CQ");
	cq->ring = rte_malloc_socket("roce_cq_ring", sizeof(struct roce_wc) * conf->cqe, 0,
				     dev->conf.socket_id);
	if (cq->ring == NULL) {
		rte_free(cq);
		NULL_ERR(dev, ENOMEM, "no memory for a CQ of %u entries", conf->cqe);
	}
	idx = roce_tbl_alloc(&dev->cqs, cq);
	if (idx < 0) {
		rte_free(cq->ring);
		rte_free(cq);
		NULL_ERR(dev, ENOSPC, "CQ limit (%u) reached", dev->lim.max_cq);
	}
	cq->dev = dev;
	cq->handle = (uint32_t)idx;
	cq->size = conf->cqe;
	cq->notify = conf->notify;
	cq->notify_arg = conf->notify_arg;
	return cq;
}

int
roce_cq_destroy(struct roce_cq *cq)
{
	if (cq->refs != 0)
		return roce_err(cq->dev, EBUSY, "CQ %u is used by %u QPs", cq->handle, cq->refs);
	roce_tbl_free(&cq->dev->cqs, cq->handle);
	rte_free(cq->ring);
	rte_free(cq);
	return 0;
}

uint32_t
roce_cq_handle(const struct roce_cq *cq)
{
	return cq->handle;
}

struct roce_cq *
roce_cq_get(struct roce_dev *dev, uint32_t h)
{
	return roce_tbl_get(&dev->cqs, h);
}

static void
cq_overflow(struct roce_cq *cq)
{
	struct roce_dev *dev = cq->dev;
	uint32_t i;

	cq->overflow = true;
	ROCE_LOG(WARNING, "%s: CQ %u overflowed (%u entries); its QPs enter ERR", dev->name,
		 cq->handle, cq->size);
	if (dev->conf.event_cb != NULL)
		dev->conf.event_cb(dev->conf.event_arg, ROCE_EVENT_CQ_ERR, cq->handle);
	for (i = 0; i < dev->qps.size; i++) {
		struct roce_qp *qp = dev->qps.slot[i];

		if (qp != NULL && (qp->send_cq == cq || qp->recv_cq == cq) &&
		    qp->state != ROCE_QPS_ERR && qp->state != ROCE_QPS_RESET)
			roce_qp_error(qp, ROCE_WC_WR_FLUSH_ERR);
	}
	if (dev->gsi != NULL && (dev->gsi->send_cq == cq || dev->gsi->recv_cq == cq) &&
	    dev->gsi->state != ROCE_QPS_ERR && dev->gsi->state != ROCE_QPS_RESET)
		roce_qp_error(dev->gsi, ROCE_WC_WR_FLUSH_ERR);
}

bool
roce_cq_push(struct roce_cq *cq, const struct roce_wc *wc, bool solicited)
{
	if (cq->overflow)
		return false;
	if (cq->head - cq->tail >= cq->size) {
		cq_overflow(cq);
		return false;
	}
	cq->ring[cq->head % cq->size] = *wc;
	cq->head++;
	if ((cq->arm & ROCE_CQ_NEXT_COMPLETION) ||
	    ((cq->arm & ROCE_CQ_SOLICITED) && (solicited || wc->status != ROCE_WC_SUCCESS))) {
		cq->arm = 0;
		if (cq->notify != NULL)
			cq->notify(cq->notify_arg, cq);
	}
	return true;
}

int
roce_cq_poll(struct roce_cq *cq, struct roce_wc *wc, int n)
{
	int i;

	if (cq->overflow && cq->head == cq->tail)
		return -EIO;
	for (i = 0; i < n && cq->tail != cq->head; i++) {
		wc[i] = cq->ring[cq->tail % cq->size];
		cq->tail++;
	}
	return i;
}

uint32_t
roce_cq_pending(const struct roce_cq *cq)
{
	return cq->head - cq->tail;
}

int
roce_cq_arm(struct roce_cq *cq, uint32_t flags)
{
	if (flags == 0 || (flags & ~(ROCE_CQ_SOLICITED | ROCE_CQ_NEXT_COMPLETION)))
		return roce_err(cq->dev, EINVAL, "CQ arm flags 0x%x are not SOLICITED or "
				"NEXT_COMPLETION", flags);
	cq->arm |= flags;
	return 0;
}

/* ---------------- AH ---------------- */

struct roce_ah *
roce_ah_create(struct roce_pd *pd, const struct roce_ah_attr *attr)
{
	struct roce_dev *dev = pd->dev;
	struct roce_ah *ah;
	int idx;

	if (attr->sgid_index >= dev->lim.gid_tbl_len || !dev->gid_valid[attr->sgid_index])
		NULL_ERR(dev, EINVAL, "AH source GID index %u is not set", attr->sgid_index);
	if (attr->vlan_id != ROCE_VLAN_NONE && attr->vlan_id > 4095)
		NULL_ERR(dev, EINVAL, "AH VLAN %u is not 0..4095", attr->vlan_id);
	if (roce_gid_is_v4(attr->dgid) != roce_gid_is_v4(dev->gid[attr->sgid_index]))
		NULL_ERR(dev, EINVAL, "AH source and destination GIDs are of different IP versions");
	ah = rte_zmalloc_socket("roce_ah", sizeof(*ah), 0, dev->conf.socket_id);
	if (ah == NULL)
		NULL_ERR(dev, ENOMEM, "no memory for an AH");
	idx = roce_tbl_alloc(&dev->ahs, ah);
	if (idx < 0) {
		rte_free(ah);
		NULL_ERR(dev, ENOSPC, "AH limit (%u) reached", dev->lim.max_ah);
	}
	ah->dev = dev;
	ah->pd = pd;
	ah->handle = (uint32_t)idx + 1;
	ah->attr = *attr;
	pd->refs++;
	return ah;
}

int
roce_ah_destroy(struct roce_ah *ah)
{
	roce_tbl_free(&ah->dev->ahs, ah->handle - 1);
	ah->pd->refs--;
	rte_free(ah);
	return 0;
}

uint32_t
roce_ah_handle(const struct roce_ah *ah)
{
	return ah->handle;
}

struct roce_ah *
roce_ah_get(struct roce_dev *dev, uint32_t h)
{
	return h == 0 ? NULL : roce_tbl_get(&dev->ahs, h - 1);
}

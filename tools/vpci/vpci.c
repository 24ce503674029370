/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vpci's core: the backend registry, loading the configuration into
 * functions (at load, before EAL scans sysfs), the model's threads and the
 * counters.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vpci_priv.h"

#define VPCI_MAX_MODELS 16

struct vpci_dev vpci_devs[VPCI_MAX_DEVS];
unsigned int vpci_nb_devs;
bool vpci_active;
char vpci_root[PATH_MAX];
unsigned int vpci_nb_files;
char vpci_file_from[VPCI_MAX_FILES][PATH_MAX];
char vpci_file_to[VPCI_MAX_FILES][PATH_MAX];

static const struct vpci_model_ops *models[VPCI_MAX_MODELS];
static unsigned int nb_models;
static bool loaded;

void
vpci_msg(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		n = sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	if (write(STDERR_FILENO, buf, n) < 0)
		return; /* nowhere else to say it */
}

VPCI_EXPORT int
vpci_model_register(const struct vpci_model_ops *ops)
{
	unsigned int i;

	if (ops == NULL || ops->name == NULL || ops->describe == NULL || ops->create == NULL ||
			ops->destroy == NULL || ops->bar_read == NULL || ops->bar_write == NULL)
		return -EINVAL;
	for (i = 0; i < nb_models; i++)
		if (strcmp(models[i]->name, ops->name) == 0)
			return -EEXIST;
	if (nb_models == VPCI_MAX_MODELS)
		return -ENOSPC;
	models[nb_models++] = ops;
	return 0;
}

const struct vpci_model_ops *
vpci_model_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < nb_models; i++)
		if (strcmp(models[i]->name, name) == 0)
			return models[i];
	return NULL;
}

struct vpci_dev *
vpci_dev_by_group(unsigned int group)
{
	unsigned int i;

	for (i = 0; i < vpci_nb_devs; i++)
		if (vpci_devs[i].group == group && vpci_devs[i].sysfs != VPCI_SYSFS_NO_IOMMU_GROUP)
			return &vpci_devs[i];
	return NULL;
}

struct vpci_dev *
vpci_dev_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < vpci_nb_devs; i++)
		if (strcmp(vpci_devs[i].name, name) == 0)
			return &vpci_devs[i];
	return NULL;
}

static bool
pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/* What describe() said must make a function EAL can map. */
static const char *
info_check(const struct vpci_dev_info *in)
{
	unsigned int i;
	uint64_t tab_end;

	for (i = 0; i < VPCI_MAX_BARS; i++) {
		if (in->bars[i].size == 0)
			continue;
		if (!pow2(in->bars[i].size) || in->bars[i].size < 4096)
			return "a BAR size is not a power of two >= 4096";
		/* each BAR's made-up bus address is aligned to its size (a PCI rule) */
		if (!in->bars[i].is_64 && in->bars[i].size > VPCI_BAR32_STRIDE / 8)
			return "a 32-bit BAR larger than 8 MiB";
		if (in->bars[i].is_64 && in->bars[i].size > VPCI_BAR_STRIDE / 8)
			return "a 64-bit BAR larger than 1 GiB";
		if (in->bars[i].is_64) {
			if (i == VPCI_MAX_BARS - 1 || in->bars[i + 1].size != 0)
				return "a 64-bit BAR without a free next index";
			i++;
		}
	}
	if (in->msix_vectors == 0)
		return NULL;
	if (in->msix_vectors > VPCI_MAX_VECTORS)
		return "more MSI-X vectors than vpci keeps (64)";
	if (in->msix_bar >= VPCI_MAX_BARS || in->bars[in->msix_bar].size == 0)
		return "the MSI-X BAR is not a BAR";
	tab_end = in->msix_table_offset + 16ULL * in->msix_vectors + 8;
	if ((in->msix_table_offset & 7) != 0 || tab_end > in->bars[in->msix_bar].size)
		return "the MSI-X table and PBA do not fit in their BAR";
	return NULL;
}

static void
add_device(const char *entry, void *arg)
{
	struct vpci_conf *c = malloc(sizeof(*c));
	struct vpci_dev *dev;
	char err[256];
	const char *why;
	unsigned int i;
	int ret;

	(void)arg;
	if (c == NULL) {
		VPCI_ERR("%s: out of memory; not presented", entry);
		return;
	}
	if (vpci_conf_parse(entry, c, err, sizeof(err)) != 0) {
		VPCI_ERR("\"%s\": %s; not presented", entry, err);
		goto out;
	}
	if (vpci_nb_devs == VPCI_MAX_DEVS) {
		VPCI_ERR("\"%s\": more than %d devices; not presented", entry, VPCI_MAX_DEVS);
		goto out;
	}
	dev = &vpci_devs[vpci_nb_devs];
	memset(dev, 0, sizeof(*dev));
	snprintf(dev->name, sizeof(dev->name), "%04x:%02x:%02x.%x", c->domain, c->bus,
			c->devid, c->function);
	if (vpci_dev_by_name(dev->name) != NULL) {
		VPCI_ERR("\"%s\": %s given twice; not presented", entry, dev->name);
		goto out;
	}
	dev->ops = vpci_model_find(c->model);
	if (dev->ops == NULL) {
		VPCI_ERR("\"%s\": no backend \"%s\"; not presented", entry, c->model);
		goto out;
	}
	if (vpci_nb_files + c->nb_files > VPCI_MAX_FILES) {
		VPCI_ERR("\"%s\": more than %d file redirects in all; not presented", entry,
				VPCI_MAX_FILES);
		goto out;
	}
	dev->info.numa_node = -1;
	ret = dev->ops->describe(c->args, &dev->info);
	if (ret < 0) {
		VPCI_ERR("\"%s\": backend %s refused its arguments \"%s\" (%s); not presented",
				entry, c->model, c->args, strerror(-ret));
		goto out;
	}
	why = info_check(&dev->info);
	if (why != NULL) {
		VPCI_ERR("\"%s\": backend %s describes a bad function: %s; not presented", entry,
				c->model, why);
		goto out;
	}
	if (c->numa != -2)
		dev->info.numa_node = c->numa;
	snprintf(dev->args, sizeof(dev->args), "%s", c->args);
	dev->sysfs = c->sysfs;
	dev->index = vpci_nb_devs;
	dev->group = VPCI_GROUP_BASE + vpci_nb_devs;
	dev->dev_fd = -1;
	dev->req_fd = -1;
	for (i = 0; i < VPCI_MAX_VECTORS; i++)
		dev->irq_fd[i] = -1;
	for (i = 0; i < VPCI_MAX_BARS; i++)
		dev->bar_addr[i] = dev->info.bars[i].is_64 ?
			VPCI_BAR_BASE + dev->index * VPCI_BAR_STRIDE + i * (VPCI_BAR_STRIDE / 8) :
			VPCI_BAR32_BASE + dev->index * VPCI_BAR32_STRIDE +
			i * (VPCI_BAR32_STRIDE / 8);
	pthread_mutex_init(&dev->lock, NULL);
	rte_rwlock_init(&dev->irq_lock);
	vpci_cfg_init(dev);
	for (i = 0; i < c->nb_files; i++) {
		memcpy(vpci_file_from[vpci_nb_files], c->file_from[i], PATH_MAX);
		memcpy(vpci_file_to[vpci_nb_files], c->file_to[i], PATH_MAX);
		vpci_nb_files++;
	}
	vpci_nb_devs++;
out:
	free(c);
}

/* The whole of a configuration file, or NULL after a message. */
static char *
read_file(const char *path)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	int fd = vpci_real_open(path, O_RDONLY | O_CLOEXEC, 0);
	ssize_t n;

	if (fd < 0 || buf == NULL) {
		VPCI_ERR("VPCI_CONFIG=%s: %s; no device from it", path, strerror(errno));
		goto fail;
	}
	for (;;) {
		if (len + 1 == cap) {
			char *nb = cap < (1 << 20) ? realloc(buf, cap * 2) : NULL;

			if (nb == NULL) {
				VPCI_ERR("VPCI_CONFIG=%s: larger than 1 MiB; no device from it",
						path);
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			VPCI_ERR("VPCI_CONFIG=%s: %s; no device from it", path, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += n;
	}
	vpci_real_close(fd);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		VPCI_ERR("VPCI_CONFIG=%s: a NUL byte in the file; no device from it", path);
		free(buf);
		return NULL;
	}
	return buf;
fail:
	if (fd >= 0)
		vpci_real_close(fd);
	free(buf);
	return NULL;
}

static void
vpci_exit(void)
{
	if (vpci_active)
		vpci_sysfs_remove();
}

VPCI_EXPORT int
vpci_init(void)
{
	const char *env, *devs;
	char *text;

	if (loaded)
		return vpci_nb_devs;
	env = getenv("VPCI_CONFIG");
	devs = getenv("VPCI_DEVICES");
	/* nothing configured yet: a later call (after setenv) may load */
	if ((env == NULL || env[0] == '\0') && devs == NULL)
		return 0;
	loaded = true;
	if (env != NULL && env[0] != '\0') {
		text = read_file(env);
		if (text != NULL) {
			vpci_conf_split(text, add_device, NULL);
			free(text);
		}
	}
	if (devs != NULL)
		vpci_conf_split(devs, add_device, NULL);
	if (vpci_nb_devs == 0)
		return 0;
	if (vpci_sysfs_build() != 0) {
		vpci_nb_devs = 0;
		vpci_nb_files = 0;
		return -1;
	}
	vpci_active = true;
	atexit(vpci_exit);
	return vpci_nb_devs;
}

/*
 * The CPUs the process may run on, before EAL pins its main thread to the
 * main lcore's: a device's threads (vpci_thread_start) run on these, not on
 * the main lcore's CPU, which pthread_create would give them from the main
 * thread that opens the device (two hfi1 model threads sharing the main
 * lcore's CPU forwarded 4 kpps where they forward 0.6 Mpps on any CPU:
 * perf_vpci_hfi1).
 */
static cpu_set_t vpci_cpus;
static bool vpci_cpus_known;

__attribute__((constructor(101))) static void
vpci_cpus_save(void)
{
	vpci_cpus_known = sched_getaffinity(0, sizeof(vpci_cpus), &vpci_cpus) == 0;
}

/* After every backend's constructor (those have a priority, this has none). */
__attribute__((constructor)) static void
vpci_load(void)
{
	vpci_init();
}

__attribute__((destructor)) static void
vpci_unload(void)
{
	vpci_exit();
}

static void *
thread_main(void *arg)
{
	struct vpci_thread *t = arg;

	t->fn(t->arg, &t->dev->stop);
	return NULL;
}

VPCI_EXPORT int
vpci_thread_start(struct vpci_dev *dev, const char *name,
		void (*fn)(void *arg, const volatile bool *stop), void *arg)
{
	struct vpci_thread *t = NULL;
	pthread_attr_t attr;
	char tname[16];
	unsigned int i;
	int ret;

	if (dev == NULL || fn == NULL)
		return -EINVAL;
	for (i = 0; i < VPCI_MAX_THREADS; i++)
		if (!dev->threads[i].used) {
			t = &dev->threads[i];
			break;
		}
	if (t == NULL)
		return -ENOSPC;
	t->fn = fn;
	t->arg = arg;
	t->dev = dev;
	dev->stop = false;
	ret = pthread_attr_init(&attr);
	if (ret != 0)
		return -ret;
	if (vpci_cpus_known)
		pthread_attr_setaffinity_np(&attr, sizeof(vpci_cpus), &vpci_cpus);
	ret = pthread_create(&t->tid, &attr, thread_main, t);
	pthread_attr_destroy(&attr);
	if (ret != 0)
		return -ret;
	t->used = true;
	snprintf(tname, sizeof(tname), "%s", name != NULL ? name : "vpci");
	pthread_setname_np(t->tid, tname);
	return 0;
}

/* Stop and join the device's threads (before destroy). */
void
vpci_threads_stop(struct vpci_dev *dev)
{
	unsigned int i;

	dev->stop = true;
	for (i = 0; i < VPCI_MAX_THREADS; i++)
		if (dev->threads[i].used) {
			pthread_join(dev->threads[i].tid, NULL);
			dev->threads[i].used = false;
		}
}

VPCI_EXPORT const char *
vpci_dev_name(const struct vpci_dev *dev)
{
	return dev->name;
}

VPCI_EXPORT int
vpci_dev_stats_get(const char *name, struct vpci_dev_stats *s)
{
	struct vpci_dev *dev = vpci_dev_by_name(name);

	if (dev == NULL || s == NULL)
		return -ENOENT;
	s->bar_reads = atomic_load(&dev->st.bar_reads);
	s->bar_writes = atomic_load(&dev->st.bar_writes);
	s->dma_maps = atomic_load(&dev->st.dma_maps);
	s->dma_unmaps = atomic_load(&dev->st.dma_unmaps);
	s->dma_faults = atomic_load(&dev->st.dma_faults);
	s->irqs_raised = atomic_load(&dev->st.irqs_raised);
	s->irqs_pending = atomic_load(&dev->st.irqs_pending);
	s->creates = atomic_load(&dev->st.creates);
	s->create_failures = atomic_load(&dev->st.create_failures);
	return 0;
}

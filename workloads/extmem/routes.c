// SPDX-License-Identifier: GPL-2.0
/*
 * The tiers.  The parent allocates and sends an fd; the re-executed child
 * maps and imports it; both write, both compare.  Every leg records what each
 * side saw, and row_finish() turns that into the strict verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "extmem.h"

#define OPAQUE VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT
#define DMABUF VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
#define HOSTALLOC VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT

/* ------------------------------------------------------------------ parent */

int probe_gl(struct probe *p)
{
	if (!p->gl_tried) {
		p->gl_tried = true;
		p->gl_ok = gl_open(&p->gl, p->gl_err) == 0;
	}
	return p->gl_ok ? 0 : -1;
}

/* name the step of a leg that did not carry bytes: why for decisive legs, note otherwise */
static void explain(struct row *r, const struct leg *l, const char *rd, const char *wr)
{
	char *to = l->decisive ? r->why : r->note;

	if (!l->ran)
		return;
	if (!l->read)
		appendf(to, ERRLEN, "%s: %s did not match", l->name, rd);
	if (!l->write)
		appendf(to, ERRLEN, "%s: %s did not arrive", l->name, wr);
}

/* the same rule at every export site: a decline is a bug only where EXPORTABLE was advertised */
static void export_declined(struct row *r, const VkExternalMemoryProperties *ep)
{
	char f[64];

	vk_ext_features(ep->externalMemoryFeatures, f, sizeof(f));
	if (ep->externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) {
		appendf(r->why, ERRLEN, "declined although advertised (features=%s): driver bug", f);
		row_force(r, S_FAIL);
	} else {
		appendf(r->why, ERRLEN, "never advertised EXPORTABLE (features=%s)", f);
		row_force(r, S_UNSUPPORTED);
	}
}

static void import_declined(struct row *r, const VkExternalMemoryProperties *ep)
{
	char f[64];

	vk_ext_features(ep->externalMemoryFeatures, f, sizeof(f));
	if (!(ep->externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT)) {
		appendf(r->why, ERRLEN, "never advertised IMPORTABLE (features=%s)", f);
		row_force(r, S_UNSUPPORTED);
	}
}

static bool vk_usable(struct probe *p, struct row *r)
{
	if (p->vk_ok)
		return true;
	appendf(r->why, ERRLEN, "no Vulkan device: %s", p->vk_err);
	row_force(r, S_SKIP);
	return false;
}

/* a missing extension is the platform's answer, not a failure: always false */
static bool not_advertised(struct row *r, const char *ext)
{
	appendf(r->why, ERRLEN, "%s not advertised", ext);
	row_force(r, S_UNSUPPORTED);
	return false;
}

static bool fd_export_usable(struct probe *p, struct row *r)
{
	if (!vk_usable(p, r))
		return false;
	if (!p->vk.ext_fd)
		return not_advertised(r, "VK_KHR_external_memory_fd");
	return true;
}

/*
 * The parent's side of every T1 route: an exportable buffer with the payload
 * in region A, and its fd.  ep is what the driver advertised for ht, so that
 * a decline can be judged; on failure nothing is left to free.
 */
static int export_payload(struct probe *p, VkExternalMemoryHandleTypeFlagBits ht, uint32_t seed,
			  struct vkbuf *b, int *fd, VkExternalMemoryProperties *ep, struct row *r)
{
	vk_ext_props(&p->vk, ht, ep);
	if (vk_export_alloc(&p->vk, b, p->o->size, ht, r->why) < 0) {
		export_declined(r, ep);
		return -1;
	}
	pat_write(b->map, REG_A, seed, p->o->selftest);
	if (vk_export_fd(&p->vk, b, ht, fd, r->why) < 0) {
		export_declined(r, ep);
		vk_buf_free(&p->vk, b);
		return -1;
	}
	return 0;
}

static void export_release(struct probe *p, struct vkbuf *b, int fd)
{
	close(fd);
	vk_buf_free(&p->vk, b);
}

/* send, then wait for the reply op; a child's failing steps land in why, its notes in note */
static int exchange(struct child *c, struct msg *m, int fd, enum msg_op want, struct row *r)
{
	if (msg_send(c->sock, m, fd) < 0) {
		appendf(r->why, ERRLEN, "sendmsg(op %u%s) -> %s", m->op, fd >= 0 ? ", SCM_RIGHTS" : "",
			strerror(errno));
		return -1;
	}
	if (msg_recv(c->sock, m, NULL) < 0) {
		appendf(r->why, ERRLEN, "recvmsg(child reply) -> %s", errno == EPIPE ?
			"EOF: the child exited" : strerror(errno));
		return -1;
	}
	if (m->op != want) {
		appendf(r->why, ERRLEN, "child replied op %u, expected %u", m->op, want);
		return -1;
	}
	if (m->text[0])
		appendf(r->why, ERRLEN, "child: %s", m->text);
	if (m->note[0])
		appendf(r->note, ERRLEN, "child: %s", m->note);
	return 0;
}

static void bye(struct child *c, struct row *r)
{
	struct msg m;

	msg_init(&m, MSG_BYE);
	if (c->sock >= 0)
		msg_send(c->sock, &m, -1);
	child_finish(c, r->why);
}

/*
 * Spawn the route's child and send it m (the HELLO) with fd; either failure
 * is in why, and the caller's bye() is then safe: it does nothing for a
 * child that never started.
 */
static int child_start(struct child *c, struct msg *m, int fd, struct row *r)
{
	if (child_spawn(c, r->route, r->why) < 0)
		return -1;
	return exchange(c, m, fd, MSG_REPORT, r);
}

static void hello(struct msg *m, const struct probe *p, uint32_t seed)
{
	msg_init(m, MSG_HELLO);
	m->selftest = p->o->selftest;
	m->size = p->o->size;
	m->seed = seed;
	if (p->vk_ok) {
		memcpy(m->dev_uuid, p->vk.dev_uuid, 16);
		memcpy(m->drv_uuid, p->vk.drv_uuid, 16);
	}
}

static void hello_buf(struct msg *m, const struct vkbuf *b, VkExternalMemoryHandleTypeFlagBits ht)
{
	m->req_size = b->req_size;
	m->alloc_size = b->alloc_size;
	m->mem_type = b->type;
	m->dedicated = b->dedicated;
	m->handle_type = ht;
}

/* T1: the parent exports a HOST_VISIBLE|HOST_COHERENT allocation; the child maps and imports it. */
static void route_t1(struct probe *p, VkExternalMemoryHandleTypeFlagBits ht, struct row *r)
{
	const bool dmabuf = ht == DMABUF;
	struct leg *raw = row_leg(r, "rawmmap", dmabuf);	/* informational for opaque-fd */
	struct leg *imp = row_leg(r, "vkimport", true);
	struct leg *gpu = row_leg(r, "gpu", true);
	struct vk *vk = &p->vk;
	VkExternalMemoryProperties ep;
	uint32_t seed = new_seed();
	struct child c = { .pid = -1, .sock = -1 };
	struct vkbuf b;
	struct msg m;
	int fd = -1;

	r->has_child = true;
	if (!fd_export_usable(p, r))
		goto done;
	if (dmabuf && !vk->ext_dmabuf) {
		not_advertised(r, "VK_EXT_external_memory_dma_buf");
		goto done;
	}
	if (export_payload(p, ht, seed, &b, &fd, &ep, r) < 0)
		goto done;
	if (!(ep.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
		appendf(r->note, ERRLEN, "exported although EXPORTABLE was never advertised");
	hello(&m, p, seed);
	hello_buf(&m, &b, ht);
	if (child_start(&c, &m, fd, r) < 0)
		goto finish;

	raw->ran = m.res[R_RAW_MAP] >= 0;
	raw->read = m.res[R_RAW_READ] == 1;
	raw->write = m.res[R_RAW_MAP] == 1 && pat_check(b.map, REG_B, seed);
	if (m.payload_at > 0)
		appendf(raw->decisive ? r->why : r->note, ERRLEN,
			"payloadAt=%lld: the fd maps, but its offset 0 is not the allocation's base",
			(long long)m.payload_at);
	if (m.res[R_RAW_MAP] == 1)
		explain(r, raw, "the child's mmap read of region A", "the child's mmap write (region B)");
	imp->ran = m.res[R_VK_IMPORT] >= 0;
	imp->read = m.res[R_VK_READ] == 1;
	imp->write = m.res[R_VK_IMPORT] == 1 && pat_check(b.map, REG_C, seed);
	explain(r, imp, "the child's vkMapMemory read of region A",
		"the child's write through its imported VkDeviceMemory (region C)");
	gpu->ran = m.res[R_GPU_READ] >= 0;
	gpu->read = m.res[R_GPU_READ] == 1;
	gpu->write = gpu->ran && fill_check(b.map, REG_E, seed);
	explain(r, gpu, "the child's vkCmdCopyBuffer of region A",
		"the child's vkCmdFillBuffer (region E)");
finish:
	bye(&c, r);
	export_release(p, &b, fd);
done:
	row_finish(r);
}

static bool gles_usable(struct probe *p, struct row *r)
{
	if (!fd_export_usable(p, r))
		return false;
	if (probe_gl(p) < 0) {
		appendf(r->why, ERRLEN, "no EGL/GLES context: %s", p->gl_err);
		row_force(r, S_SKIP);
		return false;
	}
	if (!p->gl.memobj_fd)
		return not_advertised(r, "GL_EXT_memory_object_fd");
	if (p->gl.have_uuid && memcmp(p->gl.dev_uuid, p->vk.dev_uuid, 16))
		appendf(r->note, ERRLEN, "GL_DEVICE_UUID_EXT differs from the Vulkan deviceUUID: an fd import is not legal");
	return true;
}

static void persistent_leg(struct row *r, struct leg *l, int rc, const char *err)
{
	l->ran = true;
	l->read = rc == 1;
	if (rc < 0)
		appendf(r->note, ERRLEN, "storage backed, but %s: reported apart (DirectGLES needs the persistent map)",
			err);
	else if (rc == 0)
		appendf(r->note, ERRLEN, "PERSISTENT|COHERENT map returned wrong bytes");
	else
		appendf(r->note, ERRLEN, "PERSISTENT|COHERENT map read the payload (writes through it not exercised)");
}

/* T1-gles in one process: can GL import this fd at all? */
static void route_t1_gles_inproc(struct probe *p, struct row *r)
{
	struct leg *st = row_leg(r, "glstorage", true);
	struct leg *gpu = row_leg(r, "gpu", true);
	struct leg *pm = row_leg(r, "persistent", false);
	struct vk *vk = &p->vk;
	VkExternalMemoryProperties ep;
	uint32_t seed = new_seed();
	struct gl_import imp;
	char perr[ERRLEN] = "";
	uint32_t *tmp;
	struct vkbuf b;
	int fd = -1, rc;

	if (!gles_usable(p, r))
		goto done;
	tmp = malloc(REGION);
	if (!tmp) {
		appendf(r->why, ERRLEN, "malloc -> %s", strerror(errno));
		goto done;
	}
	if (export_payload(p, OPAQUE, seed, &b, &fd, &ep, r) < 0)
		goto free_tmp;
	st->ran = true;
	if (gl_ladder(&p->gl, fd, b.req_size, p->o->size, &imp) < 0) {
		appendf(r->why, ERRLEN, "every rung refused: %s", imp.ladder);
		goto release_export;
	}
	appendf(r->note, ERRLEN, "accepted=%s", imp.accepted);
	if (imp.ladder[0])
		appendf(r->note, ERRLEN, "ladder: %s", imp.ladder);
	/* reads before writes */
	if (gl_read(&p->gl, imp.buf, (size_t)REG_A * REGION, REGION, tmp, r->why) == 0)
		st->read = pat_check_at(tmp, REG_A, seed);
	rc = gl_persistent(&p->gl, imp.buf, (size_t)imp.bufsize, seed, perr);
	persistent_leg(r, pm, rc, perr);
	pat_expect(tmp, REG_F, seed);
	if (p->o->selftest == SELFTEST_CORRUPT)
		tmp[7] ^= 0x100u;
	/* silent-child: the importing side (GL, in this process) never writes */
	if (p->o->selftest != SELFTEST_SILENT &&
	    gl_write(&p->gl, imp.buf, (size_t)REG_F * REGION, REGION, tmp, r->why) == 0)
		st->write = pat_check(b.map, REG_F, seed);
	explain(r, st, "GL's copy of region A", "GL's write of region F, read through Vulkan,");
	gpu->ran = true;
	rc = vk_gpu_access(vk, &b, REG_F, seed, REG_E, fill_value(seed, p->o->selftest), true, r->why);
	gpu->read = rc == 1;
	if (gl_read(&p->gl, imp.buf, (size_t)REG_E * REGION, REGION, tmp, r->why) == 0)
		gpu->write = fill_check_at(tmp, seed);
	explain(r, gpu, "Vulkan's GPU copy of GL's write (region F)",
		"Vulkan's vkCmdFillBuffer (region E) read through GL");
	gl_import_free(&p->gl, &imp);
release_export:
	export_release(p, &b, fd);
free_tmp:
	free(tmp);
done:
	row_finish(r);
}

/* T1-gles across the process boundary: the child imports the exported fd into GL. */
static void route_t1_gles_xproc(struct probe *p, struct row *r)
{
	struct leg *st = row_leg(r, "glstorage", true);
	struct leg *gpu = row_leg(r, "gpu", true);
	struct leg *pm = row_leg(r, "persistent", false);
	struct child c = { .pid = -1, .sock = -1 };
	struct vk *vk = &p->vk;
	VkExternalMemoryProperties ep;
	uint32_t seed = new_seed();
	struct vkbuf b;
	struct msg m;
	int fd = -1, rc;

	r->has_child = true;
	if (!gles_usable(p, r))
		goto done;
	if (export_payload(p, OPAQUE, seed, &b, &fd, &ep, r) < 0)
		goto done;
	hello(&m, p, seed);
	hello_buf(&m, &b, OPAQUE);
	if (child_start(&c, &m, fd, r) < 0)
		goto finish;
	if (m.res[R_GL_IMPORT] < 0) {
		appendf(r->why, ERRLEN, "the child has no usable GLES context");
		goto finish;
	}
	st->ran = true;
	if (m.accepted[0])
		appendf(r->note, ERRLEN, "accepted=%s", m.accepted);
	if (m.ladder[0])
		appendf(m.res[R_GL_IMPORT] == 1 ? r->note : r->why, ERRLEN, "%s%s",
			m.res[R_GL_IMPORT] == 1 ? "ladder: " : "every rung refused: ", m.ladder);
	if (m.res[R_GL_IMPORT] != 1)
		goto finish;
	st->read = m.res[R_GL_READ] == 1;
	st->write = pat_check(b.map, REG_D, seed);
	explain(r, st, "the child's GL copy of region A", "the child's GL write (region D)");
	pm->ran = true;
	pm->read = m.res[R_PERSIST] == 1;
	gpu->ran = true;
	rc = vk_gpu_access(vk, &b, REG_D, seed, REG_E, fill_value(seed, p->o->selftest), true, r->why);
	gpu->read = rc == 1;
	msg_init(&m, MSG_VERIFY);
	if (exchange(&c, &m, -1, MSG_RESULT, r) == 0)
		gpu->write = m.res[R_CHECK1] == 1;
	explain(r, gpu, "Vulkan's GPU copy of the child's GL write (region D)",
		"Vulkan's vkCmdFillBuffer (region E) read through the child's GL");
finish:
	bye(&c, r);
	export_release(p, &b, fd);
done:
	row_finish(r);
}

static bool host_usable(struct probe *p, struct row *r, VkExternalMemoryProperties *ep)
{
	if (!vk_usable(p, r))
		return false;
	if (!p->vk.ext_host)
		return not_advertised(r, "VK_EXT_external_memory_host");
	vk_ext_props(&p->vk, HOSTALLOC, ep);
	return true;
}

static void *memfd_map(const char *name, size_t size, int *fd, char *err)
{
	void *map;

	*fd = memfd(name);
	if (*fd < 0) {
		appendf(err, ERRLEN, "memfd_create -> %s", strerror(errno));
		return NULL;
	}
	if (ftruncate(*fd, (off_t)size) < 0) {
		appendf(err, ERRLEN, "ftruncate(memfd) -> %s", strerror(errno));
		goto close_fd;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (map == MAP_FAILED) {
		appendf(err, ERRLEN, "mmap(memfd) -> %s", strerror(errno));
		goto close_fd;
	}
	return map;
close_fd:
	close(*fd);
	*fd = -1;
	return NULL;
}

static size_t host_size(const struct vk *vk, uint64_t size)
{
	uint64_t a = vk->host_align ? vk->host_align : REGION;

	return (size_t)((size + a - 1) / a * a);
}

/* The parent's side of every T3 route: a memfd sized for a host-pointer import, payload in region A. */
static void *memfd_payload(struct probe *p, const char *name, uint32_t seed, size_t *size, int *fd,
			   struct row *r)
{
	void *map;

	*size = host_size(&p->vk, p->o->size);
	map = memfd_map(name, *size, fd, r->why);
	if (map)
		pat_write(map, REG_A, seed, p->o->selftest);
	return map;
}

/*
 * T3-external-memory-host: the importing process (the parent) allocates the
 * memfd and imports its own pointer; the child maps the same memfd.
 */
static void route_t3_host(struct probe *p, struct row *r)
{
	struct leg *mf = row_leg(r, "memfd", true);
	struct leg *imp = row_leg(r, "vkimport", true);
	struct leg *gpu = row_leg(r, "gpu", true);
	struct child c = { .pid = -1, .sock = -1 };
	VkExternalMemoryProperties ep;
	uint32_t seed = new_seed();
	struct vkbuf hb = { 0 };
	bool imported;
	size_t size;
	struct msg m;
	void *map;
	int fd, rc;

	r->has_child = true;
	if (!host_usable(p, r, &ep))
		goto done;
	map = memfd_payload(p, "extmem-t3-host", seed, &size, &fd, r);
	if (!map)
		goto done;
	imported = vk_import_host(&p->vk, &hb, map, size, r->why) == 0;
	if (!imported) {
		import_declined(r, &ep);
		if (r->forced)
			goto unmap;
	}
	hello(&m, p, seed);
	m.size = size;
	if (child_start(&c, &m, fd, r) < 0)
		goto finish;
	mf->ran = m.res[R_RAW_MAP] >= 0;
	mf->read = m.res[R_RAW_READ] == 1;
	mf->write = pat_check(map, REG_B, seed);
	explain(r, mf, "the child's mmap read of region A", "the child's mmap write (region B)");
	imp->ran = gpu->ran = true;
	if (imported && hb.map) {
		imp->read = pat_check(hb.map, REG_B, seed);
		pat_write(hb.map, REG_C, seed, p->o->selftest);
	}
	if (imported) {
		rc = vk_gpu_access(&p->vk, &hb, REG_B, seed, REG_E, fill_value(seed, p->o->selftest),
				   true, r->why);
		gpu->read = rc == 1;
	}
	msg_init(&m, MSG_VERIFY);
	if (exchange(&c, &m, -1, MSG_RESULT, r) == 0) {
		imp->write = imported && hb.map && m.res[R_CHECK1] == 1;
		gpu->write = imported && m.res[R_CHECK2] == 1;
	}
	explain(r, imp, "the imported host pointer's view of the child's write (region B)",
		"a write through the imported VkDeviceMemory (region C), in the child's mmap,");
	explain(r, gpu, "vkCmdCopyBuffer of the child's write (region B)",
		"vkCmdFillBuffer (region E), in the child's mmap,");
finish:
	bye(&c, r);
	vk_buf_free(&p->vk, &hb);
unmap:
	munmap(map, size);
	close(fd);
done:
	row_finish(r);
}

/*
 * T3-client-memfd-server-import: the client (the parent) allocates and
 * writes the memfd; the server (the child) maps it, imports the pointer,
 * reads, writes back and takes a GPU access on the client's memory.
 */
static void route_t3_client(struct probe *p, struct row *r)
{
	struct leg *mf = row_leg(r, "memfd", true);
	struct leg *imp = row_leg(r, "vkimport", true);
	struct leg *gpu = row_leg(r, "gpu", true);
	struct child c = { .pid = -1, .sock = -1 };
	VkExternalMemoryProperties ep;
	uint32_t seed = new_seed();
	size_t size;
	struct msg m;
	void *map;
	int fd;

	r->has_child = true;
	if (!host_usable(p, r, &ep))
		goto done;
	map = memfd_payload(p, "extmem-t3-client", seed, &size, &fd, r);
	if (!map)
		goto done;
	hello(&m, p, seed);
	m.size = size;
	if (child_start(&c, &m, fd, r) < 0)
		goto finish;
	mf->ran = m.res[R_RAW_MAP] >= 0;
	mf->read = m.res[R_RAW_READ] == 1;
	mf->write = m.res[R_RAW_MAP] == 1 && pat_check(map, REG_C, seed);
	explain(r, mf, "the server's mmap read of region A", "the server's mmap write (region C)");
	imp->ran = m.res[R_VK_IMPORT] >= 0;
	imp->read = m.res[R_VK_READ] == 1;
	imp->write = m.res[R_VK_IMPORT] == 1 && pat_check(map, REG_B, seed);
	if (m.res[R_VK_IMPORT] == 0)
		import_declined(r, &ep);
	explain(r, imp, "the server's imported view of region A",
		"the server's write through its imported VkDeviceMemory (region B)");
	gpu->ran = m.res[R_GPU_READ] >= 0;
	gpu->read = m.res[R_GPU_READ] == 1;
	gpu->write = gpu->ran && fill_check(map, REG_E, seed);
	explain(r, gpu, "the server's vkCmdCopyBuffer of region A",
		"the server's vkCmdFillBuffer (region E)");
finish:
	bye(&c, r);
	munmap(map, size);
	close(fd);
done:
	row_finish(r);
}

/* ------------------------------------------------------------------- child */

static void wait_bye(int sock)
{
	struct msg m;

	while (msg_recv(sock, &m, NULL) == 0 && m.op != MSG_BYE)
		;
}

static int reply(int sock, struct msg *m)
{
	if (msg_send(sock, m, -1) < 0) {
		fprintf(stderr, "extmem-probe child: sendmsg -> %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* the mappings must outlive the parent's checks, which end with its BYE */
static int reply_then_wait_bye(int sock, struct msg *rep)
{
	if (reply(sock, rep) < 0)
		return -1;
	wait_bye(sock);
	return 0;
}

/* the GPU's copy of the parent's region A and, unless silent, its fill of region E */
static void child_gpu_access(struct vk *vk, const struct vkbuf *b, const struct msg *h,
			     struct msg *rep)
{
	int rc = vk_gpu_access(vk, b, REG_A, h->seed, REG_E, fill_value(h->seed, h->selftest),
			       h->selftest != SELFTEST_SILENT, rep->text);

	rep->res[R_GPU_READ] = rc == 1;
}

static void child_vk_close(struct vk *vk, struct vkbuf *b)
{
	vk_buf_free(vk, b);
	vk_close(vk);
}

static bool uuid_note(const struct vk *vk, const struct msg *h, struct msg *rep)
{
	char a[33], b[33];

	if (!memcmp(vk->dev_uuid, h->dev_uuid, 16) && !memcmp(vk->drv_uuid, h->drv_uuid, 16))
		return true;
	hexstr(vk->dev_uuid, 16, a);
	hexstr(h->dev_uuid, 16, b);
	appendf(rep->note, ERRLEN, "the child's device/driver UUID differs (device %s vs %s)", a, b);
	return false;
}

/*
 * A driver fd that mmap() accepts may still fault on first touch (a device
 * node, a handle with no pages behind it): touch it under a SIGBUS/SIGSEGV
 * guard, so the leg reads "no" instead of the child dying.
 */
static sigjmp_buf fault_jmp;
static volatile sig_atomic_t fault_armed;

static void on_fault(int sig)
{
	if (fault_armed)
		siglongjmp(fault_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

struct raw_job {
	void *raw;
	size_t len, base;
	uint32_t seed;
	enum selftest st;
	bool write;
	int match;
	long payload_at;
};

static void raw_touch(struct raw_job *j)
{
	if (j->write) {
		if (j->base + (REG_B + 1) * (size_t)REGION <= j->len)
			pat_write((char *)j->raw + j->base, REG_B, j->seed, j->st);
		return;
	}
	j->match = pat_check(j->raw, REG_A, j->seed);
	j->payload_at = j->match ? 0 : payload_scan(j->raw, j->len, j->seed);
}

/* 0 done, or the signal number that interrupted it */
static int guarded(struct raw_job *j)
{
	struct sigaction sa = { .sa_handler = on_fault }, old_bus, old_segv;
	int sig;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(fault_jmp, 1);
	if (sig == 0) {
		fault_armed = 1;
		raw_touch(j);
	}
	fault_armed = 0;
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return sig;
}

/* what the exported fd is: a memfd, a dma-buf, a driver device node */
static void describe_fd(int fd, struct msg *rep)
{
	char path[64], target[256];
	uint64_t size;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		snprintf(target, sizeof(target), "? (readlink: %s)", strerror(errno));
	else
		target[n] = 0;
	if (fd_size(fd, &size) == 0)
		appendf(rep->note, ERRLEN, "fd -> %s, %llu bytes", target, (unsigned long long)size);
	else
		appendf(rep->note, ERRLEN, "fd -> %s, no size (lseek: %s)", target, strerror(errno));
}

static int child_t1(int sock, const struct msg *h, int fd)
{
	const bool silent = h->selftest == SELFTEST_SILENT;
	struct vkbuf b = { 0 };
	struct msg rep;
	struct vk vk;
	bool vk_ok, imported = false, raw_ok = true;
	void *raw = MAP_FAILED;
	size_t rawlen = (size_t)h->alloc_size, base = 0;
	uint64_t fsz;
	int vfd, rc, sig;

	msg_init(&rep, MSG_REPORT);
	describe_fd(fd, &rep);
	/* (a) the plain mmap of the fd, read only for now */
	if (fd_size(fd, &fsz) == 0)
		rawlen = (size_t)fsz;
	raw = mmap(NULL, rawlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (raw == MAP_FAILED) {
		rep.res[R_RAW_MAP] = 0;
		appendf(rep.note, ERRLEN, "mmap(exported fd) -> %s", strerror(errno));
	} else {
		struct raw_job j = { .raw = raw, .len = rawlen, .seed = h->seed };

		rep.res[R_RAW_MAP] = 1;
		sig = guarded(&j);
		if (sig) {
			appendf(rep.note, ERRLEN, "reading the mmap of the exported fd -> %s", strsignal(sig));
			rep.res[R_RAW_READ] = 0;
			raw_ok = false;
		} else {
			rep.res[R_RAW_READ] = j.match;
			rep.payload_at = j.payload_at;
			if (j.payload_at < 0)
				appendf(rep.note, ERRLEN, "payloadAt=none (scanned %zu bytes)", rawlen);
			else
				base = (size_t)j.payload_at;
		}
	}
	/* (b) the import into the child's own VkDeviceMemory, read only for now */
	vk_ok = vk_open(&vk, rep.text) == 0;
	if (vk_ok) {
		uuid_note(&vk, h, &rep);
		vfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		rc = vfd < 0 ? -1 : vk_import_fd(&vk, &b, h->size, h->handle_type, &vfd, h->alloc_size,
						  h->mem_type, h->dedicated, rep.text);
		if (vfd >= 0)
			close(vfd);
		imported = rc == 0 && b.map;
		if (rc == 0 && !b.map)
			appendf(rep.text, ERRLEN, "imported memory type %u is not HOST_VISIBLE", b.type);
		rep.res[R_VK_IMPORT] = imported;
		if (imported)
			rep.res[R_VK_READ] = pat_check(b.map, REG_A, h->seed);
	}
	/* then the writes, each into its own region */
	if (!silent && raw != MAP_FAILED && raw_ok) {
		struct raw_job j = { .raw = raw, .len = rawlen, .base = base, .seed = h->seed,
				     .st = h->selftest, .write = true };

		sig = guarded(&j);
		if (sig)
			appendf(rep.note, ERRLEN, "writing the mmap of the exported fd -> %s", strsignal(sig));
	}
	if (!silent && imported)
		pat_write(b.map, REG_C, h->seed, h->selftest);
	if (imported)
		child_gpu_access(&vk, &b, h, &rep);
	rc = reply_then_wait_bye(sock, &rep);
	if (raw != MAP_FAILED)
		munmap(raw, rawlen);
	if (vk_ok)
		child_vk_close(&vk, &b);
	return rc < 0;
}

static int child_gles(int sock, const struct msg *h, int fd)
{
	const bool silent = h->selftest == SELFTEST_SILENT;
	struct gl_import imp = { 0 };
	char perr[ERRLEN] = "";
	uint32_t *tmp = NULL;
	struct msg rep, m;
	struct gl gl;
	bool gl_ok;
	int rc = -1;

	msg_init(&rep, MSG_REPORT);
	tmp = malloc(REGION);
	gl_ok = tmp && gl_open(&gl, rep.text) == 0;
	if (!gl_ok || !gl.memobj_fd) {
		if (gl_ok)
			appendf(rep.text, ERRLEN, "GL_EXT_memory_object_fd not advertised");
		goto report;
	}
	if (gl.have_uuid && memcmp(gl.dev_uuid, h->dev_uuid, 16))
		appendf(rep.note, ERRLEN, "GL_DEVICE_UUID_EXT differs from the exporter's deviceUUID");
	rep.res[R_GL_IMPORT] = gl_ladder(&gl, fd, h->req_size, h->size, &imp) == 0;
	snprintf(rep.accepted, sizeof(rep.accepted), "%s", imp.accepted);
	snprintf(rep.ladder, sizeof(rep.ladder), "%s", imp.ladder);
	if (rep.res[R_GL_IMPORT] != 1)
		goto report;
	if (gl_read(&gl, imp.buf, (size_t)REG_A * REGION, REGION, tmp, rep.text) == 0)
		rep.res[R_GL_READ] = pat_check_at(tmp, REG_A, h->seed);
	rep.res[R_PERSIST] = gl_persistent(&gl, imp.buf, (size_t)imp.bufsize, h->seed, perr) == 1;
	if (perr[0])
		appendf(rep.note, ERRLEN, "storage backed, but %s: reported apart (DirectGLES needs the persistent map)",
			perr);
	if (!silent) {
		pat_expect(tmp, REG_D, h->seed);
		if (h->selftest == SELFTEST_CORRUPT)
			tmp[7] ^= 0x100u;
		gl_write(&gl, imp.buf, (size_t)REG_D * REGION, REGION, tmp, rep.text);
	}
report:
	if (reply(sock, &rep) < 0)
		goto close_gl;
	/* the parent's GPU fill, read back through GL */
	while (msg_recv(sock, &m, NULL) == 0 && m.op == MSG_VERIFY) {
		msg_init(&rep, MSG_RESULT);
		if (imp.buf && gl_read(&gl, imp.buf, (size_t)REG_E * REGION, REGION, tmp, rep.text) == 0)
			rep.res[R_CHECK1] = fill_check_at(tmp, h->seed);
		if (reply(sock, &rep) < 0)
			goto close_gl;
	}
	rc = 0;
close_gl:
	if (gl_ok) {
		gl_import_free(&gl, &imp);
		gl_close(&gl);
	}
	free(tmp);
	return rc < 0;
}

static int child_t3_host(int sock, const struct msg *h, int fd)
{
	struct msg rep, m;
	void *map;
	int rc = -1;

	msg_init(&rep, MSG_REPORT);
	map = mmap(NULL, (size_t)h->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		rep.res[R_RAW_MAP] = 0;
		appendf(rep.text, ERRLEN, "mmap(memfd) -> %s", strerror(errno));
	} else {
		rep.res[R_RAW_MAP] = 1;
		rep.res[R_RAW_READ] = pat_check(map, REG_A, h->seed);
		if (h->selftest != SELFTEST_SILENT)
			pat_write(map, REG_B, h->seed, h->selftest);
	}
	if (reply(sock, &rep) < 0)
		goto unmap;
	while (msg_recv(sock, &m, NULL) == 0 && m.op == MSG_VERIFY) {
		msg_init(&rep, MSG_RESULT);
		if (map != MAP_FAILED) {
			rep.res[R_CHECK1] = pat_check(map, REG_C, h->seed);
			rep.res[R_CHECK2] = fill_check(map, REG_E, h->seed);
		}
		if (reply(sock, &rep) < 0)
			goto unmap;
	}
	rc = 0;
unmap:
	if (map != MAP_FAILED)
		munmap(map, (size_t)h->size);
	return rc < 0;
}

static int child_t3_client(int sock, const struct msg *h, int fd)
{
	const bool silent = h->selftest == SELFTEST_SILENT;
	struct vkbuf b = { 0 };
	struct msg rep;
	struct vk vk;
	bool vk_ok = false, imported = false;
	void *map;
	int rc;

	msg_init(&rep, MSG_REPORT);
	map = mmap(NULL, (size_t)h->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		rep.res[R_RAW_MAP] = 0;
		appendf(rep.text, ERRLEN, "mmap(memfd) -> %s", strerror(errno));
		goto report;
	}
	rep.res[R_RAW_MAP] = 1;
	rep.res[R_RAW_READ] = pat_check(map, REG_A, h->seed);
	vk_ok = vk_open(&vk, rep.text) == 0;
	if (vk_ok) {
		imported = vk_import_host(&vk, &b, map, h->size, rep.text) == 0;
		rep.res[R_VK_IMPORT] = imported && b.map;
		if (imported && !b.map)
			appendf(rep.text, ERRLEN, "imported host memory type %u is not HOST_VISIBLE", b.type);
		if (imported && b.map)
			rep.res[R_VK_READ] = pat_check(b.map, REG_A, h->seed);
	}
	if (!silent) {
		pat_write(map, REG_C, h->seed, h->selftest);
		if (imported && b.map)
			pat_write(b.map, REG_B, h->seed, h->selftest);
	}
	if (imported)
		child_gpu_access(&vk, &b, h, &rep);
report:
	rc = reply_then_wait_bye(sock, &rep);
	if (vk_ok)
		child_vk_close(&vk, &b);
	if (map != MAP_FAILED)
		munmap(map, (size_t)h->size);
	return rc < 0;
}

static void route_t1_opaque_fd(struct probe *p, struct row *r)
{
	route_t1(p, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, r);
}

static void route_t1_dma_buf(struct probe *p, struct row *r)
{
	route_t1(p, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, r);
}

const struct route routes[] = {
#ifdef __ANDROID__
	{ "T0-ahardwarebuffer",			ROUTE_T0,   false, route_t0,		 child_t0 },
#endif
	{ "T1-opaque-fd",			ROUTE_T1,   true,  route_t1_opaque_fd,	 child_t1 },
	{ "T1-dma-buf",				ROUTE_T1,   true,  route_t1_dma_buf,	 child_t1 },
	{ "T1-gles-in-process",			ROUTE_GLES, true,  route_t1_gles_inproc, child_gles },
	{ "T1-gles-cross-process",		ROUTE_GLES, true,  route_t1_gles_xproc,	 child_gles },
	{ "T3-external-memory-host",		ROUTE_T3,   true,  route_t3_host,	 child_t3_host },
	{ "T3-client-memfd-server-import",	ROUTE_T3,   true,  route_t3_client,	 child_t3_client },
};
const size_t nr_routes = sizeof(routes) / sizeof(routes[0]);

int child_main(const char *route, int sock)
{
	const struct route *rt = NULL;
	struct msg h;
	int fd = -1, rc;
	size_t i;

	for (i = 0; i < nr_routes && !rt; i++)
		if (!strcmp(routes[i].name, route))
			rt = &routes[i];
	if (!rt) {
		fprintf(stderr, "extmem-probe child: unknown route %s\n", route);
		return 1;
	}
	sock_timeout(sock);
	if (msg_recv(sock, &h, &fd) < 0) {
		fprintf(stderr, "extmem-probe child %s: recvmsg(HELLO) -> %s\n", route, strerror(errno));
		return 1;
	}
	if (h.op != MSG_HELLO || h.size < MIN_SIZE || h.size > (1ull << 34)) {
		fprintf(stderr, "extmem-probe child %s: bad HELLO (op %u size %llu)\n", route, h.op,
			(unsigned long long)h.size);
		rc = 1;
		goto close_fd;
	}
	if (fd < 0 && rt->needs_fd) {
		fprintf(stderr, "extmem-probe child %s: HELLO without an fd\n", route);
		rc = 1;
		goto close_fd;
	}
	rc = rt->child(sock, &h, fd);
close_fd:
	if (fd >= 0)
		close(fd);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * T0 (Android only): the server imports a client allocation.  The child
 * allocates an AHardwareBuffer BLOB, writes the payload under
 * AHardwareBuffer_lock and sends it with AHardwareBuffer_sendHandleToUnixSocket;
 * the parent reads it back by CPU lock, by a Vulkan import and as a GL buffer
 * (eglGetNativeClientBufferANDROID + glBufferStorageExternalEXT, mapped
 * persistent/coherent), writes through each and takes a GPU access; the child
 * verifies every write under its own lock.
 */
#ifdef __ANDROID__
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extmem.h"

#define AHB_USAGE (AHARDWAREBUFFER_USAGE_CPU_READ_OFTEN | AHARDWAREBUFFER_USAGE_CPU_WRITE_OFTEN | \
		   AHARDWAREBUFFER_USAGE_GPU_DATA_BUFFER)

/* ------------------------------------------------------------------ parent */

static void t0_cpu(AHardwareBuffer *ahb, uint32_t seed, enum selftest st, struct leg *l, struct row *r)
{
	void *p = NULL;
	int rc;

	l->ran = true;
	rc = AHardwareBuffer_lock(ahb, AHB_USAGE & ~AHARDWAREBUFFER_USAGE_GPU_DATA_BUFFER, -1, NULL, &p);
	if (rc) {
		appendf(r->why, ERRLEN, "AHardwareBuffer_lock -> %d (%s)", rc, strerror(-rc));
		return;
	}
	l->read = pat_check(p, REG_A, seed);
	pat_write(p, REG_B, seed, st);
	rc = AHardwareBuffer_unlock(ahb, NULL);
	if (rc)
		appendf(r->why, ERRLEN, "AHardwareBuffer_unlock -> %d (%s)", rc, strerror(-rc));
}

static void t0_gles(struct probe *p, AHardwareBuffer *ahb, uint32_t seed, struct leg *l, struct row *r)
{
	PFNEGLGETNATIVECLIENTBUFFERANDROIDPROC get_cb;
	PFNGLBUFFERSTORAGEEXTERNALEXTPROC storage;
	const GLbitfield flags = GL_MAP_READ_BIT | GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT_EXT |
				 GL_MAP_COHERENT_BIT_EXT;
	EGLClientBuffer cb;
	GLuint buf = 0;
	GLenum e;
	void *m;

	if (!p->o->gles || probe_gl(p) < 0) {
		appendf(r->why, ERRLEN, "gles leg: no EGL/GLES context: %s", p->gl_err);
		return;
	}
	if (!p->gl.ext_buffer || !p->gl.native_client_buffer) {
		appendf(r->why, ERRLEN, "gles leg: GL_EXT_external_buffer=%s EGL_ANDROID_get_native_client_buffer=%s",
			p->gl.ext_buffer ? "yes" : "no", p->gl.native_client_buffer ? "yes" : "no");
		return;
	}
	get_cb = (PFNEGLGETNATIVECLIENTBUFFERANDROIDPROC)eglGetProcAddress("eglGetNativeClientBufferANDROID");
	storage = (PFNGLBUFFERSTORAGEEXTERNALEXTPROC)eglGetProcAddress("glBufferStorageExternalEXT");
	if (!get_cb || !storage) {
		appendf(r->why, ERRLEN, "gles leg: entry points missing");
		return;
	}
	l->ran = true;
	cb = get_cb(ahb);
	if (!cb) {
		appendf(r->why, ERRLEN, "eglGetNativeClientBufferANDROID -> 0x%04x", (unsigned)eglGetError());
		return;
	}
	while (glGetError() != GL_NO_ERROR)
		;
	glGenBuffers(1, &buf);
	glBindBuffer(GL_COPY_READ_BUFFER, buf);
	storage(GL_COPY_READ_BUFFER, 0, (GLsizeiptr)p->o->size, cb, flags);
	e = glGetError();
	if (e != GL_NO_ERROR) {
		appendf(r->why, ERRLEN, "glBufferStorageExternalEXT(PERSISTENT|COHERENT) -> %s", gl_enum_name(e));
		goto delete_buf;
	}
	m = glMapBufferRange(GL_COPY_READ_BUFFER, 0, (GLsizeiptr)p->o->size, flags);
	if (!m) {
		appendf(r->why, ERRLEN, "storage backed, but glMapBufferRange(PERSISTENT|COHERENT) -> %s",
			gl_enum_name(glGetError()));
		goto delete_buf;
	}
	l->read = pat_check(m, REG_A, seed);
	pat_write(m, REG_D, seed, p->o->selftest);
	glUnmapBuffer(GL_COPY_READ_BUFFER);
	glFinish();
delete_buf:
	glBindBuffer(GL_COPY_READ_BUFFER, 0);
	glDeleteBuffers(1, &buf);
}

void route_t0(struct probe *p, struct row *r)
{
	struct leg *cpu = row_leg(r, "cpulock", true);
	struct leg *imp = row_leg(r, "vkimport", true);
	struct leg *gles = row_leg(r, "gles", true);
	struct leg *gpu = row_leg(r, "gpu", true);
	struct child c = { .pid = -1, .sock = -1 };
	uint32_t seed = new_seed();
	AHardwareBuffer *ahb = NULL;
	struct vkbuf b = { 0 };
	bool imported = false;
	struct msg m;
	int rc;

	r->has_child = true;
	if (child_spawn(&c, r->route, r->why) < 0)
		goto done;
	msg_init(&m, MSG_HELLO);
	m.selftest = p->o->selftest;
	m.size = p->o->size;
	m.seed = seed;
	if (msg_send(c.sock, &m, -1) < 0) {
		appendf(r->why, ERRLEN, "sendmsg(HELLO) -> %s", strerror(errno));
		goto finish;
	}
	rc = AHardwareBuffer_recvHandleFromUnixSocket(c.sock, &ahb);
	if (rc) {
		appendf(r->why, ERRLEN, "AHardwareBuffer_recvHandleFromUnixSocket -> %d (%s)", rc, strerror(-rc));
		ahb = NULL;
	}
	if (msg_recv(c.sock, &m, NULL) < 0 || m.op != MSG_REPORT) {
		appendf(r->why, ERRLEN, "recvmsg(child REPORT) -> %s", strerror(errno));
		goto release;
	}
	if (m.text[0])
		appendf(r->why, ERRLEN, "child: %s", m.text);
	if (!ahb)
		goto release;

	t0_cpu(ahb, seed, p->o->selftest, cpu, r);
	if (!p->vk_ok || !p->vk.ext_ahb) {
		appendf(r->why, ERRLEN, "vkimport/gpu legs: %s", !p->vk_ok ? p->vk_err :
			"VK_ANDROID_external_memory_android_hardware_buffer not advertised");
	} else {
		imp->ran = gpu->ran = true;
		imported = vk_import_ahb(&p->vk, &b, p->o->size, ahb, r->why) == 0 && b.map;
		if (imported) {
			imp->read = pat_check(b.map, REG_A, seed);
			pat_write(b.map, REG_C, seed, p->o->selftest);
			rc = vk_gpu_access(&p->vk, &b, REG_A, seed, REG_E, fill_value(seed, p->o->selftest),
					   true, r->why);
			gpu->read = rc == 1;
		}
	}
	t0_gles(p, ahb, seed, gles, r);

	msg_init(&m, MSG_VERIFY);
	if (msg_send(c.sock, &m, -1) == 0 && msg_recv(c.sock, &m, NULL) == 0 && m.op == MSG_RESULT) {
		if (m.text[0])
			appendf(r->why, ERRLEN, "child: %s", m.text);
		cpu->write = cpu->ran && m.res[R_CHECK1] == 1;
		imp->write = imported && m.res[R_CHECK2] == 1;
		gles->write = gles->ran && m.res[R_CHECK3] == 1;
		gpu->write = imported && m.res[R_CHECK4] == 1;
	} else {
		appendf(r->why, ERRLEN, "VERIFY exchange -> %s", strerror(errno));
	}
	if (imported || b.buf)
		vk_buf_free(&p->vk, &b);
release:
	if (ahb)
		AHardwareBuffer_release(ahb);
finish:
	msg_init(&m, MSG_BYE);
	msg_send(c.sock, &m, -1);
	child_finish(&c, r->why);
done:
	row_finish(r);
}

/* ------------------------------------------------------------------- child */

int child_t0(int sock, const struct msg *h, int fd)
{
	AHardwareBuffer_Desc d = { .width = (uint32_t)h->size, .height = 1, .layers = 1,
				   .format = AHARDWAREBUFFER_FORMAT_BLOB, .usage = AHB_USAGE };
	AHardwareBuffer *ahb = NULL;
	struct msg rep, m;
	void *p = NULL;
	int rc;

	(void)fd;	/* the buffer comes over the socket, not as the HELLO's fd */
	msg_init(&rep, MSG_REPORT);
	rc = AHardwareBuffer_allocate(&d, &ahb);
	if (rc) {
		appendf(rep.text, ERRLEN, "AHardwareBuffer_allocate(BLOB %u) -> %d (%s)", d.width, rc,
			strerror(-rc));
		ahb = NULL;
		goto report;
	}
	rc = AHardwareBuffer_lock(ahb, AHARDWAREBUFFER_USAGE_CPU_WRITE_OFTEN, -1, NULL, &p);
	if (rc) {
		appendf(rep.text, ERRLEN, "AHardwareBuffer_lock(WRITE) -> %d (%s)", rc, strerror(-rc));
	} else {
		memset(p, 0, (size_t)h->size);
		if (h->selftest != SELFTEST_SILENT)
			pat_write(p, REG_A, h->seed, (enum selftest)h->selftest);
		AHardwareBuffer_unlock(ahb, NULL);
	}
	rc = AHardwareBuffer_sendHandleToUnixSocket(ahb, sock);
	if (rc)
		appendf(rep.text, ERRLEN, "AHardwareBuffer_sendHandleToUnixSocket -> %d (%s)", rc, strerror(-rc));
report:
	if (msg_send(sock, &rep, -1) < 0)
		goto release;
	while (msg_recv(sock, &m, NULL) == 0 && m.op == MSG_VERIFY) {
		msg_init(&rep, MSG_RESULT);
		if (ahb) {
			rc = AHardwareBuffer_lock(ahb, AHARDWAREBUFFER_USAGE_CPU_READ_OFTEN, -1, NULL, &p);
			if (rc) {
				appendf(rep.text, ERRLEN, "AHardwareBuffer_lock(READ) -> %d (%s)", rc,
					strerror(-rc));
			} else {
				rep.res[R_CHECK1] = pat_check(p, REG_B, h->seed);
				rep.res[R_CHECK2] = pat_check(p, REG_C, h->seed);
				rep.res[R_CHECK3] = pat_check(p, REG_D, h->seed);
				rep.res[R_CHECK4] = fill_check(p, REG_E, h->seed);
				AHardwareBuffer_unlock(ahb, NULL);
			}
		}
		if (msg_send(sock, &rep, -1) < 0)
			break;
	}
release:
	if (ahb)
		AHardwareBuffer_release(ahb);
	return 0;
}
#else
typedef int extmem_t0_is_android_only;
#endif

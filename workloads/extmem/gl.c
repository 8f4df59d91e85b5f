// SPDX-License-Identifier: GPL-2.0
/*
 * EGL/GLES side: a headless context, the extensions that decide the GLES
 * legs, the import ladder and byte transfers through GL commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "extmem.h"

const char *gl_enum_name(GLenum e)
{
	static char other[32];

	switch (e) {
	case GL_NO_ERROR: return "GL_NO_ERROR";
	case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
	case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
	case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
	case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
	case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
	case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
	case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
	case GL_CONTEXT_LOST: return "GL_CONTEXT_LOST";
	default:
		snprintf(other, sizeof(other), "GLenum(0x%04x)", e);
		return other;
	}
}

static const char *egl_error_name(EGLint e)
{
	static char other[32];

	switch (e) {
	case EGL_SUCCESS: return "EGL_SUCCESS";
	case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
	case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
	case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
	case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
	case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
	case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
	case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
	case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
	case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
	case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
	default:
		snprintf(other, sizeof(other), "EGLint(0x%04x)", (unsigned)e);
		return other;
	}
}

static bool has_word(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
			return true;
	return false;
}

static int egl_fail(char *err, const char *step)
{
	appendf(err, ERRLEN, "%s -> %s", step, egl_error_name(eglGetError()));
	errno = EIO;
	return -1;
}

/* surfaceless (Mesa), then the device platform (NVIDIA), then the default display */
static int open_display(struct gl *gl, char *err)
{
	PFNEGLGETPLATFORMDISPLAYEXTPROC gpd =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	PFNEGLQUERYDEVICESEXTPROC qd = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");

	gl->client_exts = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	if (gpd && has_word(gl->client_exts, "EGL_MESA_platform_surfaceless")) {
		gl->dpy = gpd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
		gl->platform = "surfaceless";
		if (gl->dpy && eglInitialize(gl->dpy, &gl->egl_major, &gl->egl_minor))
			return 0;
		egl_fail(err, "eglInitialize(surfaceless)");
	}
	if (gpd && qd && has_word(gl->client_exts, "EGL_EXT_platform_device")) {
		EGLDeviceEXT devs[8];
		EGLint n = 0;

		if (qd(8, devs, &n) && n > 0) {
			gl->dpy = gpd(EGL_PLATFORM_DEVICE_EXT, devs[0], NULL);
			gl->platform = "device";
			if (gl->dpy && eglInitialize(gl->dpy, &gl->egl_major, &gl->egl_minor))
				return 0;
			egl_fail(err, "eglInitialize(device)");
		}
	}
	gl->dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
	gl->platform = "default";
	if (gl->dpy && eglInitialize(gl->dpy, &gl->egl_major, &gl->egl_minor))
		return 0;
	gl->dpy = EGL_NO_DISPLAY;
	return egl_fail(err, "eglInitialize(default)");
}

static int make_context(struct gl *gl, char *err)
{
	static const EGLint cfg_attr[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
					   EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
					   EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
					   EGL_NONE };
	static const EGLint pb_attr[] = { EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE };
	static const EGLint ctx_attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE };
	EGLConfig cfg = NULL;
	EGLint n = 0;

	if (!eglBindAPI(EGL_OPENGL_ES_API))
		return egl_fail(err, "eglBindAPI(EGL_OPENGL_ES_API)");
	if (eglChooseConfig(gl->dpy, cfg_attr, &cfg, 1, &n) && n > 0) {
		gl->surf = eglCreatePbufferSurface(gl->dpy, cfg, pb_attr);
		if (gl->surf == EGL_NO_SURFACE)
			return egl_fail(err, "eglCreatePbufferSurface");
	} else if (has_word(gl->egl_exts, "EGL_KHR_no_config_context") &&
		   has_word(gl->egl_exts, "EGL_KHR_surfaceless_context")) {
		cfg = EGL_NO_CONFIG_KHR;
		gl->surf = EGL_NO_SURFACE;
	} else {
		appendf(err, ERRLEN, "eglChooseConfig(PBUFFER, ES3): no config and no surfaceless context");
		errno = ENOTSUP;
		return -1;
	}
	gl->ctx = eglCreateContext(gl->dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
	if (gl->ctx == EGL_NO_CONTEXT)
		return egl_fail(err, "eglCreateContext(GLES 3)");
	if (!eglMakeCurrent(gl->dpy, gl->surf, gl->surf, gl->ctx))
		return egl_fail(err, "eglMakeCurrent");
	return 0;
}

int gl_open(struct gl *gl, char *err)
{
	memset(gl, 0, sizeof(*gl));
	if (open_display(gl, err) < 0)
		return -1;
	gl->egl_vendor = eglQueryString(gl->dpy, EGL_VENDOR);
	gl->egl_exts = eglQueryString(gl->dpy, EGL_EXTENSIONS);
	if (make_context(gl, err) < 0)
		goto terminate;

	gl->vendor = (const char *)glGetString(GL_VENDOR);
	gl->renderer = (const char *)glGetString(GL_RENDERER);
	gl->version = (const char *)glGetString(GL_VERSION);
	gl->exts = (const char *)glGetString(GL_EXTENSIONS);
	gl->memobj = has_word(gl->exts, "GL_EXT_memory_object");
	gl->memobj_fd = has_word(gl->exts, "GL_EXT_memory_object_fd");
	gl->ext_buffer = has_word(gl->exts, "GL_EXT_external_buffer");
	gl->buffer_storage = has_word(gl->exts, "GL_EXT_buffer_storage");
	gl->image_external = has_word(gl->exts, "GL_OES_EGL_image_external");
	gl->image_external_essl3 = has_word(gl->exts, "GL_OES_EGL_image_external_essl3");
	gl->native_client_buffer = has_word(gl->egl_exts, "EGL_ANDROID_get_native_client_buffer");

	gl->CreateMemoryObjects = (PFNGLCREATEMEMORYOBJECTSEXTPROC)eglGetProcAddress("glCreateMemoryObjectsEXT");
	gl->DeleteMemoryObjects = (PFNGLDELETEMEMORYOBJECTSEXTPROC)eglGetProcAddress("glDeleteMemoryObjectsEXT");
	gl->MemoryObjectParameteriv = (PFNGLMEMORYOBJECTPARAMETERIVEXTPROC)eglGetProcAddress("glMemoryObjectParameterivEXT");
	gl->ImportMemoryFd = (PFNGLIMPORTMEMORYFDEXTPROC)eglGetProcAddress("glImportMemoryFdEXT");
	gl->BufferStorageMem = (PFNGLBUFFERSTORAGEMEMEXTPROC)eglGetProcAddress("glBufferStorageMemEXT");
	gl->GetUnsignedBytei_v = (PFNGLGETUNSIGNEDBYTEI_VEXTPROC)eglGetProcAddress("glGetUnsignedBytei_vEXT");
	gl->GetUnsignedBytev = (PFNGLGETUNSIGNEDBYTEVEXTPROC)eglGetProcAddress("glGetUnsignedBytevEXT");
	if (gl->memobj && gl->GetUnsignedBytei_v && gl->GetUnsignedBytev) {
		while (glGetError() != GL_NO_ERROR)
			;
		gl->GetUnsignedBytei_v(GL_DEVICE_UUID_EXT, 0, gl->dev_uuid);
		gl->GetUnsignedBytev(GL_DRIVER_UUID_EXT, gl->drv_uuid);
		gl->have_uuid = glGetError() == GL_NO_ERROR;
	}
	if (gl->memobj_fd && !(gl->CreateMemoryObjects && gl->DeleteMemoryObjects &&
			       gl->MemoryObjectParameteriv && gl->ImportMemoryFd && gl->BufferStorageMem))
		gl->memobj_fd = false;	/* advertised, but the entry points are missing */
	return 0;

terminate:
	gl_close(gl);
	return -1;
}

void gl_close(struct gl *gl)
{
	if (gl->dpy) {
		eglMakeCurrent(gl->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		if (gl->ctx)
			eglDestroyContext(gl->dpy, gl->ctx);
		if (gl->surf)
			eglDestroySurface(gl->dpy, gl->surf);
		eglTerminate(gl->dpy);
	}
	memset(gl, 0, sizeof(*gl));
}

static void clear_errors(void)
{
	for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; i++)
		;
}

/* One rung: 0 accepted (imp filled), -1 refused (why appended to the ladder). */
static int rung(struct gl *gl, int fd, bool dedicated, uint64_t isize, GLsizeiptr bsize,
		const char *name, struct gl_import *imp)
{
	GLint one = 1;
	GLuint mo = 0, buf = 0;
	GLenum e;
	int dfd;

	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (dfd < 0) {
		appendf(imp->ladder, sizeof(imp->ladder), "%s: dup -> %s", name, strerror(errno));
		return -1;
	}
	clear_errors();
	gl->CreateMemoryObjects(1, &mo);
	if (dedicated)
		gl->MemoryObjectParameteriv(mo, GL_DEDICATED_MEMORY_OBJECT_EXT, &one);
	e = glGetError();
	if (e != GL_NO_ERROR) {
		appendf(imp->ladder, sizeof(imp->ladder), "%s: glCreateMemoryObjectsEXT -> %s", name,
			gl_enum_name(e));
		close(dfd);
		goto delete_mo;
	}
	gl->ImportMemoryFd(mo, isize, GL_HANDLE_TYPE_OPAQUE_FD_EXT, dfd);
	e = glGetError();
	if (e != GL_NO_ERROR) {
		/* a refused import leaves the fd with the caller */
		appendf(imp->ladder, sizeof(imp->ladder), "%s: glImportMemoryFdEXT -> %s", name,
			gl_enum_name(e));
		close(dfd);
		goto delete_mo;
	}
	glGenBuffers(1, &buf);
	glBindBuffer(GL_COPY_READ_BUFFER, buf);
	gl->BufferStorageMem(GL_COPY_READ_BUFFER, bsize, mo, 0);
	e = glGetError();
	glBindBuffer(GL_COPY_READ_BUFFER, 0);
	if (e != GL_NO_ERROR) {
		appendf(imp->ladder, sizeof(imp->ladder), "%s: glBufferStorageMemEXT -> %s", name,
			gl_enum_name(e));
		goto delete_buf;
	}
	imp->mo = mo;
	imp->buf = buf;
	imp->bufsize = bsize;
	imp->import_size = isize;
	imp->dedicated = dedicated;
	snprintf(imp->accepted, sizeof(imp->accepted), "%s", name);
	return 0;

delete_buf:
	glDeleteBuffers(1, &buf);
delete_mo:
	gl->DeleteMemoryObjects(1, &mo);
	clear_errors();
	return -1;
}

/*
 * The ladder: {dedicated} x {import size = VkMemoryRequirements::size, the
 * fd's own size} x {buffer size = payload, payload-8, payload-64,
 * payload-4096}; the first rung the driver accepts wins, every refused one is
 * named.  llvmpipe (Mesa 22.3) refuses a buffer that is not at least 8 bytes
 * smaller than the memory object: GL_OUT_OF_MEMORY.
 */
int gl_ladder(struct gl *gl, int fd, uint64_t req_size, uint64_t payload, struct gl_import *imp)
{
	static const struct { const char *name; uint64_t less; } bs[] = {
		{ "size", 0 }, { "size-8", 8 }, { "size-64", 64 }, { "size-4096", REGION },
	};
	uint64_t fdsz = 0;
	bool have_fdsz = fd_size(fd, &fdsz) == 0;
	int fdsz_errno = errno;

	memset(imp, 0, sizeof(*imp));
	if (!have_fdsz)
		appendf(imp->ladder, sizeof(imp->ladder), "import=fd-size: lseek(SEEK_END) -> %s",
			strerror(fdsz_errno));
	for (int ded = 0; ded < 2; ded++) {
		for (int k = 0; k < 2; k++) {
			uint64_t isize = k ? fdsz : req_size;

			if (k && (!have_fdsz || fdsz == req_size))
				continue;	/* no such size, or the same rung again */
			for (size_t b = 0; b < sizeof(bs) / sizeof(bs[0]); b++) {
				char name[160];

				snprintf(name, sizeof(name),
					 "dedicated=%d import=%s(%llu) buffer=%s(%llu)", ded,
					 k ? "fd-size" : "req-size", (unsigned long long)isize,
					 bs[b].name, (unsigned long long)(payload - bs[b].less));
				if (rung(gl, fd, ded, isize, (GLsizeiptr)(payload - bs[b].less),
					 name, imp) == 0)
					return 0;
			}
		}
	}
	errno = ENOTSUP;
	return -1;
}

void gl_import_free(struct gl *gl, struct gl_import *imp)
{
	if (imp->buf)
		glDeleteBuffers(1, &imp->buf);
	if (imp->mo)
		gl->DeleteMemoryObjects(1, &imp->mo);
	imp->buf = imp->mo = 0;
}

static int gl_fail(char *err, const char *step, GLenum e)
{
	appendf(err, ERRLEN, "%s -> %s", step, gl_enum_name(e));
	errno = EIO;
	return -1;
}

/* GPU copy out of the imported storage into a private buffer, then read that. */
int gl_read(struct gl *gl, GLuint buf, size_t off, size_t len, void *out, char *err)
{
	GLuint tmp = 0;
	void *p;
	GLenum e;
	int ret = -1;

	(void)gl;
	clear_errors();
	glGenBuffers(1, &tmp);
	glBindBuffer(GL_COPY_WRITE_BUFFER, tmp);
	glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)len, NULL, GL_STREAM_READ);
	glBindBuffer(GL_COPY_READ_BUFFER, buf);
	glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, (GLintptr)off, 0,
			    (GLsizeiptr)len);
	e = glGetError();
	if (e != GL_NO_ERROR) {
		gl_fail(err, "glCopyBufferSubData(imported -> private)", e);
		goto delete_tmp;
	}
	p = glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, (GLsizeiptr)len, GL_MAP_READ_BIT);
	if (!p) {
		gl_fail(err, "glMapBufferRange(private, READ)", glGetError());
		goto delete_tmp;
	}
	memcpy(out, p, len);
	glUnmapBuffer(GL_COPY_WRITE_BUFFER);
	ret = 0;
delete_tmp:
	glBindBuffer(GL_COPY_READ_BUFFER, 0);
	glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
	glDeleteBuffers(1, &tmp);
	return ret;
}

/* GPU copy from a private buffer into the imported storage, then glFinish. */
int gl_write(struct gl *gl, GLuint buf, size_t off, size_t len, const void *in, char *err)
{
	GLuint tmp = 0;
	GLenum e;
	int ret = -1;

	(void)gl;
	clear_errors();
	glGenBuffers(1, &tmp);
	glBindBuffer(GL_COPY_READ_BUFFER, tmp);
	glBufferData(GL_COPY_READ_BUFFER, (GLsizeiptr)len, in, GL_STREAM_DRAW);
	glBindBuffer(GL_COPY_WRITE_BUFFER, buf);
	glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, (GLintptr)off,
			    (GLsizeiptr)len);
	glFinish();
	e = glGetError();
	if (e != GL_NO_ERROR) {
		gl_fail(err, "glCopyBufferSubData(private -> imported)", e);
		goto delete_tmp;
	}
	ret = 0;
delete_tmp:
	glBindBuffer(GL_COPY_READ_BUFFER, 0);
	glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
	glDeleteBuffers(1, &tmp);
	return ret;
}

/*
 * What DirectGLES needs: a PERSISTENT|COHERENT map of the imported storage.
 * 1: mapped and the payload read back, 0: mapped but wrong bytes, -1: refused.
 */
int gl_persistent(struct gl *gl, GLuint buf, size_t len, uint32_t seed, char *err)
{
	void *p;
	int ret;

	(void)gl;
	clear_errors();
	glBindBuffer(GL_COPY_READ_BUFFER, buf);
	p = glMapBufferRange(GL_COPY_READ_BUFFER, 0, (GLsizeiptr)len,
			     GL_MAP_READ_BIT | GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT_EXT |
			     GL_MAP_COHERENT_BIT_EXT);
	if (!p) {
		gl_fail(err, "glMapBufferRange(PERSISTENT|COHERENT)", glGetError());
		glBindBuffer(GL_COPY_READ_BUFFER, 0);
		return -1;
	}
	ret = pat_check(p, REG_A, seed) ? 1 : 0;
	glUnmapBuffer(GL_COPY_READ_BUFFER);
	glBindBuffer(GL_COPY_READ_BUFFER, 0);
	return ret;
}

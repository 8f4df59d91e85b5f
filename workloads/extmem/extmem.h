/* SPDX-License-Identifier: GPL-2.0 */
/*
 * extmem-probe: can memory a GPU driver hands out be shared with another
 * process and mapped there, and by which route?  Shared declarations.
 */
#ifndef EXTMEM_H
#define EXTMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __ANDROID__
#define VK_USE_PLATFORM_ANDROID_KHR 1
#include <android/hardware_buffer.h>
#endif
#include <vulkan/vulkan.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>
#include <GLES2/gl2ext.h>

#define EXTMEM_VERSION "0.1"

/*
 * The payload is split into 4 KiB regions, one per writer, so that no writer
 * can hide another's failure: A the allocating side's payload, B/C/D the
 * other side's writes, E the GPU fill, F the in-process GL write.
 */
#define REGION 4096u
enum region { REG_A, REG_B, REG_C, REG_D, REG_E, REG_F, NREGIONS };
#define MIN_SIZE (8u * REGION)
#define ERRLEN 1024

enum selftest { SELFTEST_NONE, SELFTEST_CORRUPT, SELFTEST_SILENT };

/* route selection bits */
#define ROUTE_T0 0x1u
#define ROUTE_T1 0x2u
#define ROUTE_T3 0x4u
#define ROUTE_GLES 0x8u

struct opts {
	uint64_t size;
	unsigned routes;
	bool gles;
	int iterations;
	bool json;
	enum selftest selftest;
	bool only_t0;
};

/* ---- verdicts ---- */
enum status { S_OK, S_PARTIAL, S_UNSUPPORTED, S_FAIL, S_SKIP };
#define MAXLEGS 4

/* A leg is one path by which bytes can travel; rt needs both directions. */
struct leg {
	const char *name;
	bool decisive;
	bool ran;
	bool read;	/* this side saw what the other side wrote */
	bool write;	/* the other side saw what this side wrote */
};

struct row {
	char route[48];
	int iteration;
	bool has_child;
	bool forced;		/* status set by a rule (UNSUPPORTED/SKIP/FAIL), not by legs */
	enum status st;
	int nlegs;
	struct leg legs[MAXLEGS];
	char why[ERRLEN];
	char note[ERRLEN];
};

const char *status_name(enum status s);
const char *leg_value(const struct leg *l);
void row_init(struct row *r, const char *route, int iteration);
struct leg *row_leg(struct row *r, const char *name, bool decisive);
void row_force(struct row *r, enum status st);
void row_finish(struct row *r);
void row_trace(const struct row *r, char *buf, size_t len);

/* ---- small helpers (util.c) ---- */
void appendf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void hexstr(const uint8_t *b, size_t n, char *out);
uint32_t pat_word(uint32_t seed, unsigned tag, size_t i);
uint32_t fill_word(uint32_t seed);
void pat_write(void *base, enum region r, uint32_t seed, enum selftest st);
bool pat_check(const void *base, enum region r, uint32_t seed);
bool pat_check_at(const void *p, enum region r, uint32_t seed);
void pat_expect(void *out, enum region r, uint32_t seed);
bool fill_check(const void *base, enum region r, uint32_t seed);
bool fill_check_at(const void *p, uint32_t seed);
uint32_t fill_value(uint32_t seed, enum selftest st);
long payload_scan(const void *base, size_t len, uint32_t seed);
uint32_t new_seed(void);
int fd_size(int fd, uint64_t *size);
int memfd(const char *name);

/* ---- Vulkan (vk.c) ---- */
#define BUF_USAGE (VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | \
		   VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | \
		   VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT)

struct vk {
	VkInstance inst;
	VkPhysicalDevice pd;
	VkDevice dev;
	VkQueue queue;
	uint32_t qfam;
	VkCommandPool pool;
	uint32_t instance_version;
	uint32_t ndevices, index;
	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties mem;
	uint8_t dev_uuid[VK_UUID_SIZE], drv_uuid[VK_UUID_SIZE];
	bool have_driver_props;
	uint32_t driver_id;
	char driver_name[VK_MAX_DRIVER_NAME_SIZE], driver_info[VK_MAX_DRIVER_INFO_SIZE];
	bool ext_fd, ext_dmabuf, ext_host, ext_ahb;
	VkDeviceSize host_align;
	PFN_vkGetMemoryFdKHR get_fd;
	PFN_vkGetMemoryFdPropertiesKHR fd_props;
	PFN_vkGetMemoryHostPointerPropertiesEXT host_props;
#ifdef __ANDROID__
	PFN_vkGetAndroidHardwareBufferPropertiesANDROID ahb_props;
#endif
};

struct vkbuf {
	VkBuffer buf;
	VkDeviceMemory mem;
	VkDeviceSize size, req_size, alloc_size;
	uint32_t type;
	bool dedicated;
	void *map;
};

const char *vk_result_name(VkResult r);
const char *vk_handle_name(VkExternalMemoryHandleTypeFlagBits ht);
int vk_open(struct vk *vk, char *err);
void vk_close(struct vk *vk);
void vk_ext_props(const struct vk *vk, VkExternalMemoryHandleTypeFlagBits ht,
		  VkExternalMemoryProperties *out);
int vk_export_alloc(struct vk *vk, struct vkbuf *b, VkDeviceSize size,
		    VkExternalMemoryHandleTypeFlagBits ht, char *err);
int vk_export_fd(struct vk *vk, const struct vkbuf *b, VkExternalMemoryHandleTypeFlagBits ht,
		 int *fd, char *err);
int vk_import_fd(struct vk *vk, struct vkbuf *b, VkDeviceSize size,
		 VkExternalMemoryHandleTypeFlagBits ht, int *fd, VkDeviceSize alloc_size,
		 uint32_t type, bool dedicated, char *err);
int vk_import_host(struct vk *vk, struct vkbuf *b, void *ptr, VkDeviceSize size, char *err);
#ifdef __ANDROID__
int vk_import_ahb(struct vk *vk, struct vkbuf *b, VkDeviceSize size, AHardwareBuffer *ahb,
		  char *err);
#endif
int vk_gpu_access(struct vk *vk, const struct vkbuf *shared, enum region src, uint32_t src_seed,
		  enum region fill, uint32_t fillval, bool do_fill, char *err);
void vk_buf_free(struct vk *vk, struct vkbuf *b);
void vk_mem_flags(VkMemoryPropertyFlags f, char *out, size_t len);
void vk_ext_features(VkExternalMemoryFeatureFlags f, char *out, size_t len);
void vk_handle_types(VkExternalMemoryHandleTypeFlags f, char *out, size_t len);

/* ---- EGL / GLES (gl.c) ---- */
struct gl {
	EGLDisplay dpy;
	EGLContext ctx;
	EGLSurface surf;
	const char *platform;
	EGLint egl_major, egl_minor;
	const char *egl_vendor, *egl_exts, *client_exts;
	const char *vendor, *renderer, *version, *exts;
	bool memobj, memobj_fd, ext_buffer, buffer_storage, image_external, image_external_essl3,
	     native_client_buffer;
	bool have_uuid;
	uint8_t dev_uuid[16], drv_uuid[16];
	PFNGLCREATEMEMORYOBJECTSEXTPROC CreateMemoryObjects;
	PFNGLDELETEMEMORYOBJECTSEXTPROC DeleteMemoryObjects;
	PFNGLMEMORYOBJECTPARAMETERIVEXTPROC MemoryObjectParameteriv;
	PFNGLIMPORTMEMORYFDEXTPROC ImportMemoryFd;
	PFNGLBUFFERSTORAGEMEMEXTPROC BufferStorageMem;
	PFNGLGETUNSIGNEDBYTEI_VEXTPROC GetUnsignedBytei_v;
	PFNGLGETUNSIGNEDBYTEVEXTPROC GetUnsignedBytev;
};

/* the rung of the import ladder the driver accepted, and all it refused */
struct gl_import {
	GLuint mo, buf;
	GLsizeiptr bufsize;
	uint64_t import_size;
	bool dedicated;
	char accepted[160];
	char ladder[ERRLEN];
};

const char *gl_enum_name(GLenum e);
int gl_open(struct gl *gl, char *err);
void gl_close(struct gl *gl);
int gl_ladder(struct gl *gl, int fd, uint64_t req_size, uint64_t payload, struct gl_import *imp);
void gl_import_free(struct gl *gl, struct gl_import *imp);
int gl_read(struct gl *gl, GLuint buf, size_t off, size_t len, void *out, char *err);
int gl_write(struct gl *gl, GLuint buf, size_t off, size_t len, const void *in, char *err);
int gl_persistent(struct gl *gl, GLuint buf, size_t len, uint32_t seed, char *err);

/* ---- the two processes (ipc.c) ---- */
enum msg_op { MSG_HELLO = 1, MSG_REPORT, MSG_VERIFY, MSG_RESULT, MSG_BYE };

/* indices into msg.res: what the child saw, 1 = matched, 0 = mismatch, -1 = not run */
enum child_res {
	R_RAW_MAP, R_RAW_READ, R_VK_IMPORT, R_VK_READ, R_GPU_READ, R_GL_IMPORT, R_GL_READ,
	R_PERSIST, R_CHECK1, R_CHECK2, R_CHECK3, R_CHECK4, NRES
};

struct msg {
	uint32_t op;
	uint32_t selftest;
	uint64_t size, req_size, alloc_size;
	uint32_t mem_type, handle_type;
	uint32_t dedicated, seed;
	uint8_t dev_uuid[16], drv_uuid[16];
	int32_t res[NRES];
	int64_t payload_at;
	char accepted[160];
	char text[ERRLEN];	/* the child's failing steps, with driver error codes */
	char note[ERRLEN];	/* what it observed that is not a failure */
	char ladder[ERRLEN];	/* the GLES import ladder's refused rungs */
};

struct child {
	pid_t pid;
	int sock;
};

int child_spawn(struct child *c, const char *route, char *err);
int child_finish(struct child *c, char *err);
int msg_send(int sock, const struct msg *m, int fd);
void sock_timeout(int sock);
int msg_recv(int sock, struct msg *m, int *fd);
void msg_init(struct msg *m, enum msg_op op);

/* ---- routes (routes.c, t0.c) ---- */
struct probe {
	const struct opts *o;
	struct vk vk;
	bool vk_ok;
	char vk_err[ERRLEN];
	struct gl gl;
	bool gl_tried, gl_ok;
	char gl_err[ERRLEN];
};

int probe_gl(struct probe *p);

/**
 * struct route - one way a buffer can cross into another process, one row
 * @name: the row's name, and what the parent passes the re-executed child
 * @select: the ROUTE_* bit that selects it
 * @needs_fd: the child's HELLO must carry an fd (all but T0, which sends
 *	its AHardwareBuffer over the socket itself)
 * @parent: the parent's side: run the route, fill the row
 * @child: the child's side after a good HELLO (@fd is -1 for T0); 0 or 1,
 *	the child's exit code
 *
 * routes[] (routes.c) is the one list: main.c runs the selected rows in its
 * order, child_main() finds the child's side by name.
 */
struct route {
	const char	*name;
	unsigned	select;
	bool		needs_fd;
	void		(*parent)(struct probe *p, struct row *r);
	int		(*child)(int sock, const struct msg *h, int fd);
};

extern const struct route routes[];
extern const size_t nr_routes;

int child_main(const char *route, int sock);
#ifdef __ANDROID__
void route_t0(struct probe *p, struct row *r);
int child_t0(int sock, const struct msg *h, int fd);
#endif

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * extmem-probe: phase A (what the run context, Vulkan and GL say they can
 * do), then the tiers, then the verdict table, as text or as one JSON object.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "extmem.h"

static const char caveat[] =
	"results hold for this SELinux domain only: an app domain (untrusted_app) has other "
	"rules for dmabuf/ashmem allocators, gralloc and device nodes, so run the same binary "
	"from the app and compare";

static const VkExternalMemoryHandleTypeFlagBits handle_types[] = {
	VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
#ifdef __ANDROID__
	VK_EXTERNAL_MEMORY_HANDLE_TYPE_ANDROID_HARDWARE_BUFFER_BIT_ANDROID,
#endif
};
#define NHT (sizeof(handle_types) / sizeof(handle_types[0]))

struct rows {
	struct row *v;
	size_t n, cap;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: extmem-probe [--size=BYTES] [--only-t0|--only-t1|--only-t3|--only-gles]\n"
		"                    [--no-gles] [--iterations N] [--json]\n"
		"                    [--self-test=corrupt|silent-child]\n"
		"  --size=BYTES       shared allocation (default 65536, at least %u, 4 KiB multiple)\n"
		"  --only-*           run only those tiers (may be combined); T0 exists on Android only\n"
		"  --no-gles          no EGL/GLES enumeration and no T1-gles rows\n"
		"  --iterations N     repeat the tiers N times (a load that maps/unmaps exported fds)\n"
		"  --json             the verdict table as one JSON object on stdout\n"
		"  --self-test=MODE   break the harness on purpose: corrupt (every write has a wrong\n"
		"                     word) or silent-child (the child never writes); no row may be OK\n",
		MIN_SIZE);
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* strtoull() skips blanks and takes a sign: " -1" would be 2^64-1 */
	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o, const char **child)
{
	enum { O_SIZE = 256, O_T0, O_T1, O_T3, O_GLES, O_NOGLES, O_ITER, O_JSON, O_SELF, O_CHILD };
	static const struct option lo[] = {
		{ "size", required_argument, NULL, O_SIZE },
		{ "only-t0", no_argument, NULL, O_T0 },
		{ "only-t1", no_argument, NULL, O_T1 },
		{ "only-t3", no_argument, NULL, O_T3 },
		{ "only-gles", no_argument, NULL, O_GLES },
		{ "no-gles", no_argument, NULL, O_NOGLES },
		{ "iterations", required_argument, NULL, O_ITER },
		{ "json", no_argument, NULL, O_JSON },
		{ "self-test", required_argument, NULL, O_SELF },
		{ "child", required_argument, NULL, O_CHILD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->size = 65536;
	o->gles = true;
	o->iterations = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_SIZE:
			if (parse_u64(optarg, &v) || v < MIN_SIZE || v % REGION || v > (1ull << 32)) {
				fprintf(stderr, "extmem-probe: --size=%s: a multiple of %u, at least %u\n",
					optarg, REGION, MIN_SIZE);
				return -1;
			}
			o->size = v;
			break;
		case O_T0: o->routes |= ROUTE_T0; o->only_t0 = true; break;
		case O_T1: o->routes |= ROUTE_T1; break;
		case O_T3: o->routes |= ROUTE_T3; break;
		case O_GLES: o->routes |= ROUTE_GLES; break;
		case O_NOGLES: o->gles = false; break;
		case O_ITER:
			if (parse_u64(optarg, &v) || v < 1 || v > 100000) {
				fprintf(stderr, "extmem-probe: --iterations %s: 1..100000\n", optarg);
				return -1;
			}
			o->iterations = (int)v;
			break;
		case O_JSON: o->json = true; break;
		case O_SELF:
			if (!strcmp(optarg, "corrupt")) {
				o->selftest = SELFTEST_CORRUPT;
			} else if (!strcmp(optarg, "silent-child")) {
				o->selftest = SELFTEST_SILENT;
			} else {
				fprintf(stderr, "extmem-probe: --self-test=%s: corrupt or silent-child\n", optarg);
				return -1;
			}
			break;
		case O_CHILD: *child = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "extmem-probe: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!o->routes)
		o->routes = ROUTE_T0 | ROUTE_T1 | ROUTE_T3 | ROUTE_GLES;
	if (o->routes & ROUTE_T1)
		o->routes |= ROUTE_GLES;	/* T1-gles is the GLES leg of T1 */
	if (!o->gles)
		o->routes &= ~ROUTE_GLES;
	return 0;
}

static void selinux_domain(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/attr/current", "r");

	out[0] = 0;
	if (!f)
		return;
	if (!fgets(out, (int)len, f))
		out[0] = 0;
	fclose(f);
	out[strcspn(out, "\n")] = 0;
	/* without an LSM, the file may read as empty or "unconfined" */
	if (!strcmp(out, "unconfined"))
		out[0] = 0;
}

static const char *dev_type(VkPhysicalDeviceType t)
{
	switch (t) {
	case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "INTEGRATED_GPU";
	case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "DISCRETE_GPU";
	case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "VIRTUAL_GPU";
	case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
	default: return "OTHER";
	}
}

static void version_str(uint32_t v, char *out, size_t len)
{
	snprintf(out, len, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
		 VK_API_VERSION_PATCH(v));
}

/* ------------------------------------------------------------ JSON writer */

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void jkey(FILE *f, const char *k, bool *first)
{
	if (!*first)
		fputc(',', f);
	*first = false;
	jstr(f, k);
	fputc(':', f);
}

static void jks(FILE *f, const char *k, const char *v, bool *first)
{
	jkey(f, k, first);
	if (v)
		jstr(f, v);
	else
		fputs("null", f);
}

static void jkb(FILE *f, const char *k, bool v, bool *first)
{
	jkey(f, k, first);
	fputs(v ? "true" : "false", f);
}

static void jku(FILE *f, const char *k, unsigned long long v, bool *first)
{
	jkey(f, k, first);
	fprintf(f, "%llu", v);
}

/* ------------------------------------------------------------- phase A */

static void vk_json(FILE *f, const struct probe *p)
{
	const struct vk *vk = &p->vk;
	char s[256], a[33];
	bool first = true, f2;

	fputc('{', f);
	jkb(f, "ok", p->vk_ok, &first);
	jks(f, "error", p->vk_ok ? "" : p->vk_err, &first);
	if (!p->vk_ok)
		goto close;
	version_str(vk->instance_version, s, sizeof(s));
	jks(f, "instance_version", s, &first);
	jku(f, "device_index", vk->index, &first);
	jku(f, "device_count", vk->ndevices, &first);
	jks(f, "device_name", vk->props.deviceName, &first);
	jks(f, "device_type", dev_type(vk->props.deviceType), &first);
	jku(f, "vendor_id", vk->props.vendorID, &first);
	jku(f, "device_id", vk->props.deviceID, &first);
	version_str(vk->props.apiVersion, s, sizeof(s));
	jks(f, "api_version", s, &first);
	jku(f, "driver_version", vk->props.driverVersion, &first);
	jks(f, "driver_name", vk->driver_name, &first);
	jks(f, "driver_info", vk->driver_info, &first);
	hexstr(vk->dev_uuid, 16, a);
	jks(f, "device_uuid", a, &first);
	hexstr(vk->drv_uuid, 16, a);
	jks(f, "driver_uuid", a, &first);
	jkey(f, "extensions", &first);
	f2 = true;
	fputc('{', f);
	jkb(f, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, vk->ext_fd, &f2);
	jkb(f, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME, vk->ext_dmabuf, &f2);
	jkb(f, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME, vk->ext_host, &f2);
	jkb(f, "VK_ANDROID_external_memory_android_hardware_buffer", vk->ext_ahb, &f2);
	fputc('}', f);
	jku(f, "min_imported_host_pointer_alignment", vk->host_align, &first);
	jkey(f, "memory_types", &first);
	fputc('[', f);
	for (uint32_t i = 0; i < vk->mem.memoryTypeCount; i++) {
		f2 = true;
		vk_mem_flags(vk->mem.memoryTypes[i].propertyFlags, s, sizeof(s));
		fprintf(f, "%s{", i ? "," : "");
		jku(f, "index", i, &f2);
		jku(f, "heap", vk->mem.memoryTypes[i].heapIndex, &f2);
		jku(f, "heap_size", vk->mem.memoryHeaps[vk->mem.memoryTypes[i].heapIndex].size, &f2);
		jks(f, "flags", s, &f2);
		fputc('}', f);
	}
	fputc(']', f);
	jks(f, "buffer_usage",
	    "TRANSFER_SRC|TRANSFER_DST|UNIFORM_BUFFER|STORAGE_BUFFER|INDEX_BUFFER|VERTEX_BUFFER", &first);
	jkey(f, "external_buffer", &first);
	fputc('[', f);
	for (size_t i = 0; i < NHT; i++) {
		VkExternalMemoryProperties ep;

		f2 = true;
		vk_ext_props(vk, handle_types[i], &ep);
		fprintf(f, "%s{", i ? "," : "");
		jks(f, "handle_type", vk_handle_name(handle_types[i]), &f2);
		vk_ext_features(ep.externalMemoryFeatures, s, sizeof(s));
		jks(f, "features", s, &f2);
		vk_handle_types(ep.exportFromImportedHandleTypes, s, sizeof(s));
		jks(f, "export_from_imported", s, &f2);
		vk_handle_types(ep.compatibleHandleTypes, s, sizeof(s));
		jks(f, "compatible", s, &f2);
		fputc('}', f);
	}
	fputc(']', f);
close:
	fputc('}', f);
}

static void vk_text(FILE *f, const struct probe *p)
{
	const struct vk *vk = &p->vk;
	char s[256], v[32], a[33], b[33];

	if (!p->vk_ok) {
		fprintf(f, "vulkan: none: %s\n", p->vk_err);
		return;
	}
	version_str(vk->instance_version, v, sizeof(v));
	fprintf(f, "vulkan: loader %s, device %u of %u: \"%s\" %s vendor=0x%04x device=0x%04x",
		v, vk->index, vk->ndevices, vk->props.deviceName, dev_type(vk->props.deviceType),
		vk->props.vendorID, vk->props.deviceID);
	version_str(vk->props.apiVersion, v, sizeof(v));
	fprintf(f, " api=%s driver=%s \"%s\"\n", v, vk->driver_name[0] ? vk->driver_name : "?",
		vk->driver_info);
	hexstr(vk->dev_uuid, 16, a);
	hexstr(vk->drv_uuid, 16, b);
	fprintf(f, "  deviceUUID=%s driverUUID=%s\n", a, b);
	for (uint32_t i = 0; i < vk->mem.memoryTypeCount; i++) {
		vk_mem_flags(vk->mem.memoryTypes[i].propertyFlags, s, sizeof(s));
		fprintf(f, "  memory type %u: heap %u (%llu MiB) %s\n", i,
			vk->mem.memoryTypes[i].heapIndex,
			(unsigned long long)(vk->mem.memoryHeaps[vk->mem.memoryTypes[i].heapIndex].size >> 20),
			s);
	}
	fprintf(f, "  VK_KHR_external_memory_fd=%s VK_EXT_external_memory_dma_buf=%s "
		"VK_EXT_external_memory_host=%s (minImportedHostPointerAlignment=%llu)",
		vk->ext_fd ? "yes" : "no", vk->ext_dmabuf ? "yes" : "no", vk->ext_host ? "yes" : "no",
		(unsigned long long)vk->host_align);
#ifdef __ANDROID__
	fprintf(f, " VK_ANDROID_external_memory_android_hardware_buffer=%s", vk->ext_ahb ? "yes" : "no");
#endif
	fprintf(f, "\n  external buffer, usage TRANSFER_SRC|TRANSFER_DST|UNIFORM|STORAGE|INDEX|VERTEX:\n");
	for (size_t i = 0; i < NHT; i++) {
		VkExternalMemoryProperties ep;
		char e[96], c[96];

		vk_ext_props(vk, handle_types[i], &ep);
		vk_ext_features(ep.externalMemoryFeatures, s, sizeof(s));
		vk_handle_types(ep.exportFromImportedHandleTypes, e, sizeof(e));
		vk_handle_types(ep.compatibleHandleTypes, c, sizeof(c));
		fprintf(f, "    %-16s features=%s exportFromImported=%s compatible=%s\n",
			vk_handle_name(handle_types[i]), s, e, c);
	}
}

struct glext { const char *name; size_t off; };
#define GLX(n, m) { n, offsetof(struct gl, m) }
static const struct glext glexts[] = {
	GLX("GL_EXT_memory_object", memobj), GLX("GL_EXT_memory_object_fd", memobj_fd),
	GLX("GL_EXT_external_buffer", ext_buffer), GLX("GL_EXT_buffer_storage", buffer_storage),
	GLX("GL_OES_EGL_image_external", image_external),
	GLX("GL_OES_EGL_image_external_essl3", image_external_essl3),
	GLX("EGL_ANDROID_get_native_client_buffer", native_client_buffer),
};

static bool glext_on(const struct gl *gl, size_t i)
{
	return *(const bool *)((const char *)gl + glexts[i].off);
}

static int uuid_match(const struct probe *p)
{
	if (!p->gl_ok || !p->gl.have_uuid || !p->vk_ok)
		return -1;
	return !memcmp(p->gl.dev_uuid, p->vk.dev_uuid, 16);
}

static void gl_text(FILE *f, const struct probe *p)
{
	const struct gl *gl = &p->gl;

	if (!p->gl_tried)
		return;
	if (!p->gl_ok) {
		fprintf(f, "gles: none: %s\n", p->gl_err);
		return;
	}
	fprintf(f, "gles: EGL %d.%d \"%s\" platform=%s; \"%s\" renderer \"%s\"\n", gl->egl_major,
		gl->egl_minor, gl->egl_vendor ? gl->egl_vendor : "?", gl->platform,
		gl->version ? gl->version : "?", gl->renderer ? gl->renderer : "?");
	fprintf(f, " ");
	for (size_t i = 0; i < sizeof(glexts) / sizeof(glexts[0]); i++)
		fprintf(f, " %s=%s", glexts[i].name, glext_on(gl, i) ? "yes" : "no");
	fputc('\n', f);
	if (gl->have_uuid) {
		char a[33];

		hexstr(gl->dev_uuid, 16, a);
		fprintf(f, "  GL_DEVICE_UUID_EXT=%s %s the Vulkan deviceUUID\n", a,
			uuid_match(p) == 1 ? "matches" : "DIFFERS FROM");
	} else {
		fprintf(f, "  GL_DEVICE_UUID_EXT: not available\n");
	}
}

static void gl_json(FILE *f, const struct probe *p)
{
	const struct gl *gl = &p->gl;
	bool first = true, f2 = true;
	char a[33];

	if (!p->gl_tried) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	jkb(f, "ok", p->gl_ok, &first);
	jks(f, "error", p->gl_ok ? "" : p->gl_err, &first);
	if (!p->gl_ok)
		goto close;
	jks(f, "platform", gl->platform, &first);
	snprintf(a, sizeof(a), "%d.%d", gl->egl_major, gl->egl_minor);
	jks(f, "egl_version", a, &first);
	jks(f, "egl_vendor", gl->egl_vendor, &first);
	jks(f, "vendor", gl->vendor, &first);
	jks(f, "renderer", gl->renderer, &first);
	jks(f, "version", gl->version, &first);
	jkey(f, "extensions", &first);
	fputc('{', f);
	for (size_t i = 0; i < sizeof(glexts) / sizeof(glexts[0]); i++)
		jkb(f, glexts[i].name, glext_on(gl, i), &f2);
	fputc('}', f);
	if (gl->have_uuid) {
		hexstr(gl->dev_uuid, 16, a);
		jks(f, "device_uuid", a, &first);
	} else {
		jks(f, "device_uuid", NULL, &first);
	}
	jkey(f, "uuid_matches_vulkan", &first);
	fputs(uuid_match(p) < 0 ? "null" : uuid_match(p) ? "true" : "false", f);
close:
	fputc('}', f);
}

/* ------------------------------------------------------------------ tiers */

static struct row *add_row(struct rows *rs, const char *route, int it)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 16;
		struct row *v = realloc(rs->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		rs->v = v;
		rs->cap = cap;
	}
	row_init(&rs->v[rs->n], route, it);
	return &rs->v[rs->n++];
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int run_tiers(struct probe *p, struct rows *rs, int it)
{
	const unsigned rt = p->o->routes;
	struct row *r;
	size_t i;

#ifndef __ANDROID__
	if (p->o->only_t0) {	/* asked for by name: say why there is no T0 here */
		if (!(r = add_row(rs, "T0-ahardwarebuffer", it)))
			return -1;
		appendf(r->why, ERRLEN, "T0 is compiled only for Android");
		row_force(r, S_SKIP);
		row_finish(r);
	}
#endif
	for (i = 0; i < nr_routes; i++) {
		if (!(rt & routes[i].select))
			continue;
		if (!(r = add_row(rs, routes[i].name, it)))
			return -1;
		routes[i].parent(p, r);
	}
	return 0;
}

static void rows_text(FILE *f, const struct rows *rs)
{
	char trace[256];

	fprintf(f, "\n%-4s %-30s %-12s %s\n", "it", "route", "status", "legs");
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *r = &rs->v[i];

		row_trace(r, trace, sizeof(trace));
		fprintf(f, "%-4d %-30s %-12s %s\n", r->iteration, r->route, status_name(r->st), trace);
		if (r->why[0])
			fprintf(f, "       why: %s\n", r->why);
		if (r->note[0])
			fprintf(f, "       note: %s\n", r->note);
	}
}

static void rows_json(FILE *f, const struct rows *rs)
{
	char trace[256];

	fputc('[', f);
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *r = &rs->v[i];
		bool first = true;

		row_trace(r, trace, sizeof(trace));
		fprintf(f, "%s\n{", i ? "," : "");
		jks(f, "route", r->route, &first);
		jku(f, "iteration", (unsigned long long)r->iteration, &first);
		jks(f, "status", status_name(r->st), &first);
		jks(f, "trace", trace, &first);
		jkb(f, "child", r->has_child, &first);
		jkey(f, "legs", &first);
		fputc('[', f);
		for (int l = 0; l < r->nlegs; l++) {
			bool f2 = true;

			fprintf(f, "%s{", l ? "," : "");
			jks(f, "name", r->legs[l].name, &f2);
			jkb(f, "decisive", r->legs[l].decisive, &f2);
			jks(f, "value", leg_value(&r->legs[l]), &f2);
			jkb(f, "read", r->legs[l].ran && r->legs[l].read, &f2);
			jkb(f, "write", r->legs[l].ran && r->legs[l].write, &f2);
			fputc('}', f);
		}
		fputc(']', f);
		jks(f, "why", r->why, &first);
		jks(f, "note", r->note, &first);
		fputc('}', f);
	}
	fputs("]", f);
}

/*
 * An OK row whose persistent[i] leg ran and failed: its bytes round-trip, but
 * not through the PERSISTENT|COHERENT map DirectGLES maps storage with, so
 * the summary counts it apart rather than as a plain OK.
 */
static bool ok_without_persistent(const struct row *r)
{
	for (int i = 0; i < r->nlegs; i++)
		if (!strcmp(r->legs[i].name, "persistent") && r->legs[i].ran && !r->legs[i].read)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const char *selftests[] = { "none", "corrupt", "silent-child" };
	struct rows rs = { 0 };
	const char *child = NULL;
	struct probe p;
	struct opts o;
	struct utsname un;
	char domain[256];
	size_t counts[5] = { 0 }, no_persist = 0;
	double t0 = now_ms();
	int rc = 0;

	if (parse_opts(argc, argv, &o, &child) < 0)
		return 2;
	if (child)
		return child_main(child, 3);

	memset(&p, 0, sizeof(p));
	p.o = &o;
	p.vk_ok = vk_open(&p.vk, p.vk_err) == 0;
	if (o.gles && (o.routes & ROUTE_GLES))
		probe_gl(&p);
	selinux_domain(domain, sizeof(domain));
	if (uname(&un) < 0)
		memset(&un, 0, sizeof(un));

	if (!o.json) {
		printf("extmem-probe %s: size=%llu iterations=%d self-test=%s\n", EXTMEM_VERSION,
		       (unsigned long long)o.size, o.iterations, selftests[o.selftest]);
		printf("run context: uid=%u pid=%d selinux=%s kernel=%s %s\n", (unsigned)getuid(),
		       (int)getpid(), domain[0] ? domain : "(none: no SELinux domain)", un.release,
		       un.machine);
		vk_text(stdout, &p);
		gl_text(stdout, &p);
		fflush(stdout);
	}
	for (int it = 1; it <= o.iterations; it++)
		if (run_tiers(&p, &rs, it) < 0) {
			fprintf(stderr, "extmem-probe: out of memory\n");
			rc = 1;
			goto close;
		}
	for (size_t i = 0; i < rs.n; i++) {
		counts[rs.v[i].st]++;
		if (rs.v[i].st == S_OK && ok_without_persistent(&rs.v[i]))
			no_persist++;
		if (rs.v[i].st == S_FAIL)
			rc = 1;
	}

	if (o.json) {
		bool first = true, f2 = true;

		fputc('{', stdout);
		jks(stdout, "tool", "extmem-probe", &first);
		jks(stdout, "version", EXTMEM_VERSION, &first);
		jku(stdout, "schema_version", 1, &first);
		jkey(stdout, "context", &first);
		fputc('{', stdout);
		jku(stdout, "uid", getuid(), &f2);
		jku(stdout, "pid", (unsigned long long)getpid(), &f2);
		jks(stdout, "selinux", domain[0] ? domain : NULL, &f2);
		jks(stdout, "selinux_caveat", caveat, &f2);
		jks(stdout, "kernel", un.release, &f2);
		jks(stdout, "machine", un.machine, &f2);
		jku(stdout, "size", o.size, &f2);
		jku(stdout, "iterations", (unsigned long long)o.iterations, &f2);
		jks(stdout, "self_test", selftests[o.selftest], &f2);
		jku(stdout, "elapsed_ms", (unsigned long long)(now_ms() - t0), &f2);
		fputc('}', stdout);
		jkey(stdout, "vulkan", &first);
		vk_json(stdout, &p);
		jkey(stdout, "gles", &first);
		gl_json(stdout, &p);
		jkey(stdout, "rows", &first);
		rows_json(stdout, &rs);
		jkey(stdout, "summary", &first);
		f2 = true;
		fputc('{', stdout);
		for (int s = S_OK; s <= S_SKIP; s++)
			jku(stdout, status_name((enum status)s), counts[s], &f2);
		jku(stdout, "OK_without_persistent_map", no_persist, &f2);
		fputc('}', stdout);
		jku(stdout, "exit", (unsigned long long)rc, &first);
		fputs("}\n", stdout);
	} else {
		rows_text(stdout, &rs);
		printf("\nsummary: %zu OK, %zu PARTIAL, %zu UNSUPPORTED, %zu FAIL, %zu SKIP (%.0f ms)\n",
		       counts[S_OK], counts[S_PARTIAL], counts[S_UNSUPPORTED], counts[S_FAIL],
		       counts[S_SKIP], now_ms() - t0);
		if (no_persist)
			printf("         %zu of the OK rows without the PERSISTENT|COHERENT map DirectGLES needs "
			       "(their bytes round-trip through GL copies)\n", no_persist);
		printf("selinux: %s: %s\n", domain[0] ? domain : "no domain", caveat);
	}
close:
	free(rs.v);
	if (p.gl_ok)
		gl_close(&p.gl);
	if (p.vk_ok)
		vk_close(&p.vk);
	return rc;
}

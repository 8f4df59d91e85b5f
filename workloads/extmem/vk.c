// SPDX-License-Identifier: GPL-2.0
/*
 * Vulkan side: one device with the external-memory extensions it has, shared
 * buffers (exported, fd-imported, host-pointer-imported) and the GPU access
 * that every tier takes before it may read OK.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extmem.h"

const char *vk_result_name(VkResult r)
{
	static char other[32];

	switch (r) {
#define C(x) case x: return #x;
	C(VK_SUCCESS) C(VK_NOT_READY) C(VK_TIMEOUT) C(VK_INCOMPLETE)
	C(VK_ERROR_OUT_OF_HOST_MEMORY) C(VK_ERROR_OUT_OF_DEVICE_MEMORY)
	C(VK_ERROR_INITIALIZATION_FAILED) C(VK_ERROR_DEVICE_LOST) C(VK_ERROR_MEMORY_MAP_FAILED)
	C(VK_ERROR_LAYER_NOT_PRESENT) C(VK_ERROR_EXTENSION_NOT_PRESENT)
	C(VK_ERROR_FEATURE_NOT_PRESENT) C(VK_ERROR_INCOMPATIBLE_DRIVER)
	C(VK_ERROR_TOO_MANY_OBJECTS) C(VK_ERROR_FORMAT_NOT_SUPPORTED) C(VK_ERROR_FRAGMENTED_POOL)
	C(VK_ERROR_UNKNOWN) C(VK_ERROR_OUT_OF_POOL_MEMORY) C(VK_ERROR_INVALID_EXTERNAL_HANDLE)
	C(VK_ERROR_FRAGMENTATION) C(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
#undef C
	default:
		snprintf(other, sizeof(other), "VkResult(%d)", (int)r);
		return other;
	}
}

const char *vk_handle_name(VkExternalMemoryHandleTypeFlagBits ht)
{
	switch (ht) {
	case VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT: return "OPAQUE_FD";
	case VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT: return "DMA_BUF";
	case VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT: return "HOST_ALLOCATION";
	case VK_EXTERNAL_MEMORY_HANDLE_TYPE_ANDROID_HARDWARE_BUFFER_BIT_ANDROID:
		return "AHARDWAREBUFFER";
	default: return "OTHER";
	}
}

static int vkfail(char *err, const char *step, VkResult r)
{
	appendf(err, ERRLEN, "%s -> %s", step, vk_result_name(r));
	errno = r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY ?
		ENOMEM : EIO;
	return -1;
}

void vk_mem_flags(VkMemoryPropertyFlags f, char *out, size_t len)
{
	static const struct { VkMemoryPropertyFlags bit; const char *name; } n[] = {
		{ VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "DEVICE_LOCAL" },
		{ VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "HOST_VISIBLE" },
		{ VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "HOST_COHERENT" },
		{ VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "HOST_CACHED" },
		{ VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, "LAZILY_ALLOCATED" },
		{ VK_MEMORY_PROPERTY_PROTECTED_BIT, "PROTECTED" },
	};
	out[0] = 0;
	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		if (f & n[i].bit)
			snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? "|" : "",
				 n[i].name);
	if (!out[0])
		snprintf(out, len, "0");
}

void vk_ext_features(VkExternalMemoryFeatureFlags f, char *out, size_t len)
{
	out[0] = 0;
	if (f & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT)
		snprintf(out + strlen(out), len - strlen(out), "DEDICATED_ONLY|");
	if (f & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT)
		snprintf(out + strlen(out), len - strlen(out), "EXPORTABLE|");
	if (f & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT)
		snprintf(out + strlen(out), len - strlen(out), "IMPORTABLE|");
	if (out[0])
		out[strlen(out) - 1] = 0;
	else
		snprintf(out, len, "0");
}

void vk_handle_types(VkExternalMemoryHandleTypeFlags f, char *out, size_t len)
{
	out[0] = 0;
	for (unsigned b = 0; b < 32; b++)
		if (f & (1u << b))
			snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? "|" : "",
				 vk_handle_name((VkExternalMemoryHandleTypeFlagBits)(1u << b)));
	if (!out[0])
		snprintf(out, len, "0");
}

static bool has_ext(const VkExtensionProperties *e, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(e[i].extensionName, name))
			return true;
	return false;
}

/* The first GPU that is not a CPU implementation, else the first device. */
static int pick_device(struct vk *vk, char *err)
{
	VkPhysicalDevice *pds;
	VkResult r;
	uint32_t n = 0;

	r = vkEnumeratePhysicalDevices(vk->inst, &n, NULL);
	if (r != VK_SUCCESS)
		return vkfail(err, "vkEnumeratePhysicalDevices", r);
	if (n == 0) {
		appendf(err, ERRLEN, "vkEnumeratePhysicalDevices: no device");
		errno = ENODEV;
		return -1;
	}
	pds = calloc(n, sizeof(*pds));
	if (!pds)
		return -1;
	r = vkEnumeratePhysicalDevices(vk->inst, &n, pds);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
		free(pds);
		return vkfail(err, "vkEnumeratePhysicalDevices", r);
	}
	vk->ndevices = n;
	vk->index = 0;
	for (uint32_t i = 0; i < n; i++) {
		VkPhysicalDeviceProperties p;

		vkGetPhysicalDeviceProperties(pds[i], &p);
		if (p.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU) {
			vk->index = i;
			break;
		}
	}
	vk->pd = pds[vk->index];
	free(pds);
	return 0;
}

static void read_identity(struct vk *vk)
{
	VkPhysicalDeviceDriverProperties drv = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES };
	VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT };
	VkPhysicalDeviceIDProperties id = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES };
	VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
					   .pNext = &id };

	vkGetPhysicalDeviceProperties(vk->pd, &vk->props);
	vkGetPhysicalDeviceMemoryProperties(vk->pd, &vk->mem);
	vk->have_driver_props = vk->props.apiVersion >= VK_API_VERSION_1_2 &&
				vk->instance_version >= VK_API_VERSION_1_2;
	if (vk->have_driver_props) {
		drv.pNext = p2.pNext;
		p2.pNext = &drv;
	}
	if (vk->ext_host) {
		host.pNext = p2.pNext;
		p2.pNext = &host;
	}
	vkGetPhysicalDeviceProperties2(vk->pd, &p2);
	memcpy(vk->dev_uuid, id.deviceUUID, VK_UUID_SIZE);
	memcpy(vk->drv_uuid, id.driverUUID, VK_UUID_SIZE);
	if (vk->have_driver_props) {
		vk->driver_id = drv.driverID;
		snprintf(vk->driver_name, sizeof(vk->driver_name), "%s", drv.driverName);
		snprintf(vk->driver_info, sizeof(vk->driver_info), "%s", drv.driverInfo);
	}
	vk->host_align = vk->ext_host ? host.minImportedHostPointerAlignment : 0;
}

static int make_device(struct vk *vk, char *err)
{
	const char *want[8];
	uint32_t nwant = 0, nq = 0, next = 0;
	VkExtensionProperties *ext = NULL;
	VkQueueFamilyProperties *qf = NULL;
	float prio = 1.0f;
	VkResult r;
	int ret = -1;

	r = vkEnumerateDeviceExtensionProperties(vk->pd, NULL, &next, NULL);
	if (r != VK_SUCCESS)
		return vkfail(err, "vkEnumerateDeviceExtensionProperties", r);
	ext = calloc(next ? next : 1, sizeof(*ext));
	if (!ext)
		return -1;
	r = vkEnumerateDeviceExtensionProperties(vk->pd, NULL, &next, ext);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
		vkfail(err, "vkEnumerateDeviceExtensionProperties", r);
		goto free_ext;
	}
	vk->ext_fd = has_ext(ext, next, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
	vk->ext_dmabuf = vk->ext_fd && has_ext(ext, next, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
	vk->ext_host = has_ext(ext, next, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
	if (vk->ext_fd)
		want[nwant++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
	if (vk->ext_dmabuf)
		want[nwant++] = VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
	if (vk->ext_host)
		want[nwant++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
#ifdef __ANDROID__
	vk->ext_ahb = has_ext(ext, next, VK_ANDROID_EXTERNAL_MEMORY_ANDROID_HARDWARE_BUFFER_EXTENSION_NAME) &&
		      has_ext(ext, next, VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME);
	if (vk->ext_ahb) {
		want[nwant++] = VK_ANDROID_EXTERNAL_MEMORY_ANDROID_HARDWARE_BUFFER_EXTENSION_NAME;
		want[nwant++] = VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME;
	}
#endif
	read_identity(vk);

	vkGetPhysicalDeviceQueueFamilyProperties(vk->pd, &nq, NULL);
	qf = calloc(nq ? nq : 1, sizeof(*qf));
	if (!qf)
		goto free_ext;
	vkGetPhysicalDeviceQueueFamilyProperties(vk->pd, &nq, qf);
	vk->qfam = UINT32_MAX;
	for (uint32_t i = 0; i < nq; i++)
		if (qf[i].queueCount && (qf[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT |
							    VK_QUEUE_TRANSFER_BIT))) {
			vk->qfam = i;
			break;
		}
	if (vk->qfam == UINT32_MAX) {
		appendf(err, ERRLEN, "no queue family with transfer");
		errno = ENODEV;
		goto free_qf;
	}

	VkDeviceQueueCreateInfo qi = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
				       .queueFamilyIndex = vk->qfam, .queueCount = 1,
				       .pQueuePriorities = &prio };
	VkDeviceCreateInfo di = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
				  .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi,
				  .enabledExtensionCount = nwant, .ppEnabledExtensionNames = want };
	r = vkCreateDevice(vk->pd, &di, NULL, &vk->dev);
	if (r != VK_SUCCESS) {
		vkfail(err, "vkCreateDevice", r);
		goto free_qf;
	}
	vkGetDeviceQueue(vk->dev, vk->qfam, 0, &vk->queue);
	ret = 0;
free_qf:
	free(qf);
free_ext:
	free(ext);
	return ret;
}

int vk_open(struct vk *vk, char *err)
{
	PFN_vkEnumerateInstanceVersion enum_version;
	VkResult r;

	memset(vk, 0, sizeof(*vk));
	vk->instance_version = VK_API_VERSION_1_0;
	enum_version = (PFN_vkEnumerateInstanceVersion)vkGetInstanceProcAddr(NULL,
							"vkEnumerateInstanceVersion");
	if (enum_version)
		enum_version(&vk->instance_version);
	if (vk->instance_version < VK_API_VERSION_1_1) {
		appendf(err, ERRLEN, "Vulkan loader is 1.0: external memory needs 1.1");
		errno = ENOTSUP;
		return -1;
	}
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
				  .pApplicationName = "extmem-probe",
				  .apiVersion = vk->instance_version >= VK_API_VERSION_1_2 ?
						VK_API_VERSION_1_2 : VK_API_VERSION_1_1 };
	VkInstanceCreateInfo ii = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
				    .pApplicationInfo = &app };
	r = vkCreateInstance(&ii, NULL, &vk->inst);
	if (r != VK_SUCCESS)
		return vkfail(err, "vkCreateInstance", r);
	if (pick_device(vk, err) < 0)
		goto destroy_instance;
	vkGetPhysicalDeviceProperties(vk->pd, &vk->props);
	if (vk->props.apiVersion < VK_API_VERSION_1_1) {
		appendf(err, ERRLEN, "device is Vulkan 1.0: external memory needs 1.1");
		errno = ENOTSUP;
		goto destroy_instance;
	}
	if (make_device(vk, err) < 0)
		goto destroy_instance;

	VkCommandPoolCreateInfo pi = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
				       .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
				       .queueFamilyIndex = vk->qfam };
	r = vkCreateCommandPool(vk->dev, &pi, NULL, &vk->pool);
	if (r != VK_SUCCESS) {
		vkfail(err, "vkCreateCommandPool", r);
		goto destroy_device;
	}
	if (vk->ext_fd) {
		vk->get_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(vk->dev, "vkGetMemoryFdKHR");
		vk->fd_props = (PFN_vkGetMemoryFdPropertiesKHR)vkGetDeviceProcAddr(vk->dev,
							"vkGetMemoryFdPropertiesKHR");
	}
	if (vk->ext_host)
		vk->host_props = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(vk->dev,
							"vkGetMemoryHostPointerPropertiesEXT");
#ifdef __ANDROID__
	if (vk->ext_ahb)
		vk->ahb_props = (PFN_vkGetAndroidHardwareBufferPropertiesANDROID)vkGetDeviceProcAddr(
			vk->dev, "vkGetAndroidHardwareBufferPropertiesANDROID");
#endif
	return 0;

destroy_device:
	vkDestroyDevice(vk->dev, NULL);
	vk->dev = VK_NULL_HANDLE;
destroy_instance:
	vkDestroyInstance(vk->inst, NULL);
	vk->inst = VK_NULL_HANDLE;
	return -1;
}

void vk_close(struct vk *vk)
{
	if (vk->dev) {
		vkDeviceWaitIdle(vk->dev);
		if (vk->pool)
			vkDestroyCommandPool(vk->dev, vk->pool, NULL);
		vkDestroyDevice(vk->dev, NULL);
	}
	if (vk->inst)
		vkDestroyInstance(vk->inst, NULL);
	memset(vk, 0, sizeof(*vk));
}

void vk_ext_props(const struct vk *vk, VkExternalMemoryHandleTypeFlagBits ht,
		  VkExternalMemoryProperties *out)
{
	VkPhysicalDeviceExternalBufferInfo bi = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
		.usage = BUF_USAGE, .handleType = ht };
	VkExternalBufferProperties p = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES };

	vkGetPhysicalDeviceExternalBufferProperties(vk->pd, &bi, &p);
	*out = p.externalMemoryProperties;
}

static int pick_type(const struct vk *vk, uint32_t bits, VkMemoryPropertyFlags want)
{
	for (uint32_t i = 0; i < vk->mem.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (vk->mem.memoryTypes[i].propertyFlags & want) == want)
			return (int)i;
	return -1;
}

/* A buffer (external when ht != 0); its requirements; whether it needs a dedicated allocation. */
static int make_buffer(struct vk *vk, struct vkbuf *b, VkDeviceSize size,
		       VkExternalMemoryHandleTypeFlagBits ht, VkMemoryRequirements *req,
		       bool *dedicated, char *err)
{
	VkExternalMemoryBufferCreateInfo ext = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO, .handleTypes = ht };
	VkBufferCreateInfo bi = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
				  .pNext = ht ? &ext : NULL, .size = size, .usage = BUF_USAGE,
				  .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
	VkMemoryDedicatedRequirements dr = { .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS };
	VkMemoryRequirements2 r2 = { .sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, .pNext = &dr };
	VkBufferMemoryRequirementsInfo2 ri = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2 };
	VkResult r;

	memset(b, 0, sizeof(*b));
	r = vkCreateBuffer(vk->dev, &bi, NULL, &b->buf);
	if (r != VK_SUCCESS)
		return vkfail(err, "vkCreateBuffer", r);
	ri.buffer = b->buf;
	vkGetBufferMemoryRequirements2(vk->dev, &ri, &r2);
	*req = r2.memoryRequirements;
	*dedicated = dr.requiresDedicatedAllocation;
	if (ht) {
		VkExternalMemoryProperties ep;

		vk_ext_props(vk, ht, &ep);
		if (ep.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT)
			*dedicated = true;
	}
	b->size = size;
	b->req_size = req->size;
	return 0;
}

/* an entry point the driver did not hand out: the extension is there, the call is not */
static int not_exposed(char *err, const char *fn)
{
	appendf(err, ERRLEN, "%s: not exposed", fn);
	errno = ENOTSUP;
	return -1;
}

/* for the failures before b has memory: vk_buf_free() would free a handle never made */
static void destroy_buffer(struct vk *vk, struct vkbuf *b)
{
	vkDestroyBuffer(vk->dev, b->buf, NULL);
	b->buf = VK_NULL_HANDLE;
}

/* a buffer that needs (or asked for) a dedicated allocation is named in the chain after next */
static void chain_dedicated(const struct vkbuf *b, VkMemoryDedicatedAllocateInfo *ded,
			    const void **next)
{
	if (!b->dedicated)
		return;
	ded->buffer = b->buf;
	*next = ded;
}

/*
 * size bytes of b->type, with what ai chains in (export, import, dedicated).
 * On failure the buffer is destroyed too, so that the caller has nothing to undo.
 */
static int allocate_memory(struct vk *vk, struct vkbuf *b, VkMemoryAllocateInfo *ai,
			   VkDeviceSize size, const char *step, char *err)
{
	VkResult r;

	ai->allocationSize = size;
	ai->memoryTypeIndex = b->type;
	r = vkAllocateMemory(vk->dev, ai, NULL, &b->mem);
	if (r != VK_SUCCESS) {
		/* the spec leaves the handle undefined: a later vk_buf_free must not free it */
		b->mem = VK_NULL_HANDLE;
		vkfail(err, step, r);
		destroy_buffer(vk, b);
		return -1;
	}
	b->alloc_size = ai->allocationSize;
	return 0;
}

/* Map only HOST_VISIBLE types: the others stay unmapped, b->map NULL.  On failure b is freed whole. */
static int bind_map(struct vk *vk, struct vkbuf *b, char *err)
{
	VkResult r = vkBindBufferMemory(vk->dev, b->buf, b->mem, 0);

	if (r != VK_SUCCESS) {
		vkfail(err, "vkBindBufferMemory", r);
		goto free_buf;
	}
	if (!(vk->mem.memoryTypes[b->type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
		return 0;
	r = vkMapMemory(vk->dev, b->mem, 0, VK_WHOLE_SIZE, 0, &b->map);
	if (r != VK_SUCCESS) {
		vkfail(err, "vkMapMemory", r);
		goto free_buf;
	}
	return 0;

free_buf:
	vk_buf_free(vk, b);
	return -1;
}

int vk_export_alloc(struct vk *vk, struct vkbuf *b, VkDeviceSize size,
		    VkExternalMemoryHandleTypeFlagBits ht, char *err)
{
	VkExportMemoryAllocateInfo ex = { .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
					  .handleTypes = ht };
	VkMemoryDedicatedAllocateInfo ded = { .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO };
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &ex };
	VkMemoryRequirements req;
	int t;

	if (make_buffer(vk, b, size, ht, &req, &b->dedicated, err) < 0)
		return -1;
	t = pick_type(vk, req.memoryTypeBits,
		      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	if (t < 0) {
		appendf(err, ERRLEN, "no HOST_VISIBLE|HOST_COHERENT type in memoryTypeBits=0x%x",
			req.memoryTypeBits);
		errno = ENOTSUP;
		goto destroy_buffer;
	}
	b->type = (uint32_t)t;
	chain_dedicated(b, &ded, &ex.pNext);
	if (allocate_memory(vk, b, &ai, req.size, "vkAllocateMemory(export)", err) < 0 ||
	    bind_map(vk, b, err) < 0)
		return -1;
	if (!b->map) {
		appendf(err, ERRLEN, "exported memory type %u is not HOST_VISIBLE", b->type);
		errno = ENOTSUP;
		goto free_buf;
	}
	memset(b->map, 0, (size_t)size);
	return 0;

free_buf:
	vk_buf_free(vk, b);
	return -1;
destroy_buffer:
	destroy_buffer(vk, b);
	return -1;
}

int vk_export_fd(struct vk *vk, const struct vkbuf *b, VkExternalMemoryHandleTypeFlagBits ht,
		 int *fd, char *err)
{
	VkMemoryGetFdInfoKHR gi = { .sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
				    .memory = b->mem, .handleType = ht };
	VkResult r;

	if (!vk->get_fd)
		return not_exposed(err, "vkGetMemoryFdKHR");
	*fd = -1;
	r = vk->get_fd(vk->dev, &gi, fd);
	if (r != VK_SUCCESS)
		return vkfail(err, "vkGetMemoryFdKHR", r);
	return 0;
}

/* A successful vkAllocateMemory takes the fd: *fd is then set to -1. */
int vk_import_fd(struct vk *vk, struct vkbuf *b, VkDeviceSize size,
		 VkExternalMemoryHandleTypeFlagBits ht, int *fd, VkDeviceSize alloc_size,
		 uint32_t type, bool dedicated, char *err)
{
	VkImportMemoryFdInfoKHR im = { .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
				       .handleType = ht, .fd = *fd };
	VkMemoryDedicatedAllocateInfo ded = { .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO };
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &im };
	VkMemoryRequirements req;
	bool need_ded;
	VkResult r;

	if (make_buffer(vk, b, size, ht, &req, &need_ded, err) < 0)
		return -1;
	if (ht == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT && vk->fd_props) {
		VkMemoryFdPropertiesKHR fp = { .sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR };
		int t;

		r = vk->fd_props(vk->dev, ht, *fd, &fp);
		if (r != VK_SUCCESS) {
			vkfail(err, "vkGetMemoryFdPropertiesKHR", r);
			goto destroy_buffer;
		}
		t = pick_type(vk, fp.memoryTypeBits & req.memoryTypeBits,
			      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
		if (t >= 0)
			type = (uint32_t)t;
	}
	if (type >= vk->mem.memoryTypeCount || !(req.memoryTypeBits & (1u << type))) {
		appendf(err, ERRLEN, "import: memory type %u not in memoryTypeBits=0x%x", type,
			req.memoryTypeBits);
		errno = EINVAL;
		goto destroy_buffer;
	}
	b->type = type;
	b->dedicated = dedicated || need_ded;
	chain_dedicated(b, &ded, &im.pNext);
	if (allocate_memory(vk, b, &ai, alloc_size, "vkAllocateMemory(import fd)", err) < 0)
		return -1;
	*fd = -1;
	return bind_map(vk, b, err);

destroy_buffer:
	destroy_buffer(vk, b);
	return -1;
}

int vk_import_host(struct vk *vk, struct vkbuf *b, void *ptr, VkDeviceSize size, char *err)
{
	const VkExternalMemoryHandleTypeFlagBits ht = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	VkMemoryHostPointerPropertiesEXT hp = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT };
	VkImportMemoryHostPointerInfoEXT im = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
		.handleType = ht, .pHostPointer = ptr };
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &im };
	VkMemoryRequirements req;
	bool need_ded;
	VkResult r;
	int t;

	if (!vk->host_props)
		return not_exposed(err, "vkGetMemoryHostPointerPropertiesEXT");
	if (make_buffer(vk, b, size, ht, &req, &need_ded, err) < 0)
		return -1;
	r = vk->host_props(vk->dev, ht, ptr, &hp);
	if (r != VK_SUCCESS) {
		vkfail(err, "vkGetMemoryHostPointerPropertiesEXT", r);
		goto destroy_buffer;
	}
	t = pick_type(vk, hp.memoryTypeBits & req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
	if (t < 0)
		t = pick_type(vk, hp.memoryTypeBits & req.memoryTypeBits, 0);
	if (t < 0) {
		appendf(err, ERRLEN, "host pointer memoryTypeBits=0x%x, buffer memoryTypeBits=0x%x: no common type",
			hp.memoryTypeBits, req.memoryTypeBits);
		errno = ENOTSUP;
		goto destroy_buffer;
	}
	b->type = (uint32_t)t;
	if (allocate_memory(vk, b, &ai, size, "vkAllocateMemory(import host pointer)", err) < 0)
		return -1;
	return bind_map(vk, b, err);

destroy_buffer:
	destroy_buffer(vk, b);
	return -1;
}

#ifdef __ANDROID__
int vk_import_ahb(struct vk *vk, struct vkbuf *b, VkDeviceSize size, AHardwareBuffer *ahb,
		  char *err)
{
	const VkExternalMemoryHandleTypeFlagBits ht =
		VK_EXTERNAL_MEMORY_HANDLE_TYPE_ANDROID_HARDWARE_BUFFER_BIT_ANDROID;
	VkAndroidHardwareBufferPropertiesANDROID ap = {
		.sType = VK_STRUCTURE_TYPE_ANDROID_HARDWARE_BUFFER_PROPERTIES_ANDROID };
	VkImportAndroidHardwareBufferInfoANDROID im = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_ANDROID_HARDWARE_BUFFER_INFO_ANDROID, .buffer = ahb };
	VkMemoryDedicatedAllocateInfo ded = { .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO };
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &im };
	VkMemoryRequirements req;
	bool need_ded;
	VkResult r;
	int t;

	if (!vk->ahb_props)
		return not_exposed(err, "vkGetAndroidHardwareBufferPropertiesANDROID");
	if (make_buffer(vk, b, size, ht, &req, &need_ded, err) < 0)
		return -1;
	r = vk->ahb_props(vk->dev, ahb, &ap);
	if (r != VK_SUCCESS) {
		vkfail(err, "vkGetAndroidHardwareBufferPropertiesANDROID", r);
		goto destroy_buffer;
	}
	t = pick_type(vk, ap.memoryTypeBits & req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
	if (t < 0) {
		appendf(err, ERRLEN, "AHB memoryTypeBits=0x%x: no HOST_VISIBLE type", ap.memoryTypeBits);
		errno = ENOTSUP;
		goto destroy_buffer;
	}
	b->type = (uint32_t)t;
	b->dedicated = need_ded;
	chain_dedicated(b, &ded, &im.pNext);
	if (allocate_memory(vk, b, &ai, ap.allocationSize, "vkAllocateMemory(import AHardwareBuffer)",
			    err) < 0)
		return -1;
	return bind_map(vk, b, err);

destroy_buffer:
	destroy_buffer(vk, b);
	return -1;
}
#endif

void vk_buf_free(struct vk *vk, struct vkbuf *b)
{
	if (b->map)
		vkUnmapMemory(vk->dev, b->mem);
	if (b->buf)
		vkDestroyBuffer(vk->dev, b->buf, NULL);
	if (b->mem)
		vkFreeMemory(vk->dev, b->mem, NULL);
	memset(b, 0, sizeof(*b));
}

static int staging_alloc(struct vk *vk, struct vkbuf *st, char *err)
{
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkMemoryRequirements req;
	bool ded;
	int t;

	if (make_buffer(vk, st, REGION, 0, &req, &ded, err) < 0)
		return -1;
	t = pick_type(vk, req.memoryTypeBits,
		      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	if (t < 0) {
		appendf(err, ERRLEN, "staging: no HOST_VISIBLE|HOST_COHERENT type");
		errno = ENOTSUP;
		goto destroy_buffer;
	}
	st->type = (uint32_t)t;
	if (allocate_memory(vk, st, &ai, req.size, "vkAllocateMemory(staging)", err) < 0 ||
	    bind_map(vk, st, err) < 0)
		return -1;
	memset(st->map, 0, REGION);
	return 0;

destroy_buffer:
	destroy_buffer(vk, st);
	return -1;
}

/*
 * The GPU access: copy region src out of the shared allocation into a private
 * staging buffer (did the GPU see what the peer wrote?) and fill region fill
 * (the peer then checks it through its own mapping), wait, host-read barrier.
 * 1: the copy matched, 0: it did not, -1: a step failed.
 */
int vk_gpu_access(struct vk *vk, const struct vkbuf *shared, enum region src, uint32_t src_seed,
		  enum region fill, uint32_t fillval, bool do_fill, char *err)
{
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					    .commandPool = vk->pool,
					    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					    .commandBufferCount = 1 };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
					.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
	VkMemoryBarrier host_to_gpu = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
					.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT,
					.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT |
							 VK_ACCESS_TRANSFER_WRITE_BIT };
	VkMemoryBarrier gpu_to_host = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
					.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
					.dstAccessMask = VK_ACCESS_HOST_READ_BIT };
	VkBufferCopy copy = { .srcOffset = (VkDeviceSize)src * REGION, .size = REGION };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1 };
	struct vkbuf st;
	VkCommandBuffer cb;
	VkResult r;
	int ret = -1;

	if (staging_alloc(vk, &st, err) < 0)
		return -1;
	r = vkAllocateCommandBuffers(vk->dev, &cai, &cb);
	if (r != VK_SUCCESS) {
		vkfail(err, "vkAllocateCommandBuffers", r);
		goto free_staging;
	}
	r = vkBeginCommandBuffer(cb, &bi);
	if (r != VK_SUCCESS) {
		vkfail(err, "vkBeginCommandBuffer", r);
		goto free_cb;
	}
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
			     1, &host_to_gpu, 0, NULL, 0, NULL);
	vkCmdCopyBuffer(cb, shared->buf, st.buf, 1, &copy);
	if (do_fill)
		vkCmdFillBuffer(cb, shared->buf, (VkDeviceSize)fill * REGION, REGION, fillval);
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
			     1, &gpu_to_host, 0, NULL, 0, NULL);
	r = vkEndCommandBuffer(cb);
	if (r != VK_SUCCESS) {
		vkfail(err, "vkEndCommandBuffer", r);
		goto free_cb;
	}
	si.pCommandBuffers = &cb;
	r = vkQueueSubmit(vk->queue, 1, &si, VK_NULL_HANDLE);
	if (r != VK_SUCCESS) {
		vkfail(err, "vkQueueSubmit", r);
		goto free_cb;
	}
	r = vkQueueWaitIdle(vk->queue);
	if (r != VK_SUCCESS) {
		vkfail(err, "vkQueueWaitIdle", r);
		goto free_cb;
	}
	ret = pat_check_at(st.map, src, src_seed) ? 1 : 0;
	if (!ret)
		appendf(err, ERRLEN, "vkCmdCopyBuffer: the GPU copy of region %c does not match what the peer wrote",
			'A' + src);
free_cb:
	vkFreeCommandBuffers(vk->dev, vk->pool, 1, &cb);
free_staging:
	vk_buf_free(vk, &st);
	return ret;
}

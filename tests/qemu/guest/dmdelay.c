// SPDX-License-Identifier: GPL-2.0
/*
 * dmdelay: create a dm-delay device over a block device with the raw
 * device-mapper ioctls (no static dmsetup exists in Debian), for the QEMU
 * guest of tests/qemu.
 *
 *   dmdelay NAME DEV READ_MS [WRITE_MS]   prints "major:minor" of /dev/mapper/NAME
 *   dmdelay -r NAME                       removes it
 *
 * Table: "0 <sectors> delay DEV 0 READ_MS DEV 0 WRITE_MS".
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define BUFSZ 16384

static union {
	struct dm_ioctl io;
	char raw[BUFSZ];
} buf;

static void init_io(const char *name)
{
	memset(&buf, 0, sizeof(buf));
	buf.io.version[0] = DM_VERSION_MAJOR;
	buf.io.version[1] = 0;
	buf.io.version[2] = 0;
	buf.io.data_size = sizeof(buf);
	buf.io.data_start = sizeof(struct dm_ioctl);
	snprintf(buf.io.name, sizeof(buf.io.name), "%s", name);
}

static int dm(int fd, unsigned long cmd, const char *what)
{
	if (ioctl(fd, cmd, &buf) < 0) {
		fprintf(stderr, "dmdelay: %s: %s\n", what, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);

	if (ctl < 0) {
		mkdir("/dev/mapper", 0755);
		/* misc 10:236 is device-mapper's control node */
		if (mknod("/dev/mapper/control", S_IFCHR | 0600, makedev(10, 236)) && errno != EEXIST) {
			perror("dmdelay: mknod /dev/mapper/control");
			return 1;
		}
		ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	}
	if (ctl < 0) {
		perror("dmdelay: /dev/mapper/control");
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "-r")) {
		init_io(argv[2]);
		return dm(ctl, DM_DEV_REMOVE, "remove") ? 1 : 0;
	}
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: dmdelay NAME DEV READ_MS [WRITE_MS] | dmdelay -r NAME\n");
		return 2;
	}
	const char *name = argv[1], *dev = argv[2];
	unsigned int rms = (unsigned int)strtoul(argv[3], NULL, 10);
	unsigned int wms = argc == 5 ? (unsigned int)strtoul(argv[4], NULL, 10) : 0;

	int bfd = open(dev, O_RDONLY | O_CLOEXEC);
	uint64_t bytes = 0;
	if (bfd < 0 || ioctl(bfd, BLKGETSIZE64, &bytes) < 0) {
		fprintf(stderr, "dmdelay: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	close(bfd);

	init_io(name);
	if (dm(ctl, DM_DEV_CREATE, "create"))
		return 1;

	init_io(name);
	buf.io.target_count = 1;
	struct dm_target_spec *spec = (struct dm_target_spec *)(buf.raw + sizeof(struct dm_ioctl));
	spec->sector_start = 0;
	spec->length = bytes / 512;
	snprintf(spec->target_type, sizeof(spec->target_type), "delay");
	char *params = (char *)(spec + 1);
	int n = snprintf(params, BUFSZ - sizeof(struct dm_ioctl) - sizeof(*spec),
			 "%s 0 %u %s 0 %u", dev, rms, dev, wms);
	/* next is relative to this spec; keep params 8-byte aligned */
	size_t len = sizeof(*spec) + (size_t)n + 1;
	len = (len + 7) & ~(size_t)7;
	spec->next = (uint32_t)len;
	buf.io.data_size = (uint32_t)(sizeof(struct dm_ioctl) + len);
	if (dm(ctl, DM_TABLE_LOAD, "table load"))
		goto remove;

	init_io(name);
	if (dm(ctl, DM_DEV_SUSPEND, "resume"))	/* no SUSPEND flag = resume */
		goto remove;

	unsigned int maj = major(buf.io.dev), min = minor(buf.io.dev);
	char path[256];
	mkdir("/dev/mapper", 0755);
	snprintf(path, sizeof(path), "/dev/mapper/%s", name);
	unlink(path);
	if (mknod(path, S_IFBLK | 0600, makedev(maj, min))) {
		perror("dmdelay: mknod");
		goto remove;
	}
	printf("%u:%u\n", maj, min);
	return 0;
remove:
	init_io(name);
	dm(ctl, DM_DEV_REMOVE, "remove");
	return 1;
}

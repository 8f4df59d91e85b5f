// SPDX-License-Identifier: GPL-2.0
/*
 * One ring-buffer page (a sub-buffer of trace_pipe_raw) checked and counted,
 * for the collector's per-CPU readers and for a capture that came over a
 * transport (device/rawcap.c).  The page is trusted only as far as its own
 * header says: a commit size that does not fit the page (one flipped byte
 * is enough) would send kbuffer walking through memory beyond it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kbuffer.h>

#include "capture.h"
#include "util.h"

/* kbuffer's reading of a page header's commit word */
#define COMMIT_MASK		((1ULL << 27) - 1)
#define COMMIT_FLAG_MISSED	(1ULL << 31)
#define COMMIT_FLAG_STORED	(1ULL << 30)

int page_count_one(struct kbuffer *kbuf, const void *page, int page_size,
		   struct page_count *c)
{
	const size_t word = sizeof(long);
	uint64_t size, events = 0;
	unsigned long commit;
	void *data;
	int m;

	memcpy(&commit, (const char *)page + 8, word);
	size = (uint64_t)commit & COMMIT_MASK;
	/* a stored missed-event count sits right after the data */
	if ((commit & COMMIT_FLAG_MISSED) && (commit & COMMIT_FLAG_STORED))
		size += word;
	/* kbuffer takes a non-const page; it only reads it */
	if (8 + word + size > (uint64_t)page_size || kbuffer_load_subbuffer(kbuf, (void *)page) < 0)
		goto damaged;
	/* kbuffer says it only before the page's first event is read */
	m = kbuffer_missed_events(kbuf);
	for (data = kbuffer_read_event(kbuf, NULL); data; data = kbuffer_next_event(kbuf, NULL)) {
		if (kbuffer_curr_size(kbuf) <= 0 ||
		    kbuffer_curr_offset(kbuf) + kbuffer_curr_size(kbuf) >
		    kbuffer_start_of_data(kbuf) + kbuffer_subbuffer_size(kbuf))
			goto damaged;
		events++;
	}
	if (m > 0)
		c->missed += (uint64_t)m;
	else if (m < 0)
		c->missed_unknown++;
	c->events += events;
	return 0;

damaged:
	c->bad_pages++;
	return -1;
}

int page_count_file(int dirfd, const char *name, int page_size, struct page_count *c)
{
	struct kbuffer *kbuf;
	char *page;
	int fd, ret = 0, err;

	memset(c, 0, sizeof(*c));
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!kbuf) {
		errno = ENOMEM;
		ret = -1;
		goto close_fd;
	}
	page = xcalloc(1, (size_t)page_size + PAGE_COUNT_SLACK);
	for (;;) {
		size_t got = 0;

		while (got < (size_t)page_size) {
			ssize_t n = read(fd, page + got, (size_t)page_size - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (n < 0)
					ret = -1;
				break;
			}
			got += (size_t)n;
		}
		c->bytes += got;
		if (got < (size_t)page_size) {
			c->tail_bytes = got;
			break;
		}
		c->pages++;
		memset(page + page_size, 0, PAGE_COUNT_SLACK);
		page_count_one(kbuf, page, page_size, c);
	}
	free(page);
	kbuffer_free(kbuf);
close_fd:
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

/*
 * copy_align: how the relative alignment of source and destination changes the cost of a copy on
 * this CPU, in user space and in the kernel's socket copies
 * (docs/measurements/2026-11-24-tcp-bandwidth-what-the-machine-does-to-both-programs.md).
 *
 *   copy_align movsb [SIZE]   GB/s of `rep movsb` (the instruction the kernel's user copies use on
 *                             CPUs with FSRM) of SIZE bytes (default 1 MiB) for each
 *                             (destination - source) mod 64, the source page-aligned
 *   copy_align tcp [SIZE]     GB/s of a TCP stream over 127.0.0.1 of SIZE-byte writes from a
 *                             page-aligned buffer, read into a buffer OFFSET bytes past a page
 *                             boundary, for OFFSET 0, 8, ..., 56; then the same with a 40-byte
 *                             header before each write (as libfabric's tcp provider sends a write)
 *   copy_align stream SECONDS GB/s of one such stream of 1 MiB writes for SECONDS, the writer
 *                             pinned to CPU 0 and the reader to CPU 1; run beside cpu_distance
 *                             (docs/measurements/2026-11-27-tcp-two-speeds-the-host-s-placement-of-the-two-cpus.md):
 *                             while :; do echo "$(cpu_distance) $(copy_align stream 0.5)"; done
 *
 * Build: gcc -O2 -o copy_align bin/lib/copy_align.c -lpthread
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void rep_movsb(void *dst, const void *src, size_t n)
{
	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static void *page_buffer(size_t len, int fill)
{
	char *b = aligned_alloc(4096, (len + 8191) / 4096 * 4096);
	if (!b) {
		perror("aligned_alloc");
		exit(1);
	}
	memset(b, fill, len + 64);
	return b;
}

static void movsb(size_t size)
{
	char *src = page_buffer(size, 's'), *dst = page_buffer(size + 64, 'd');
	printf("rep movsb of %zu bytes, GB/s by (destination - source) mod 64:\n", size);
	for (int rel = 0; rel < 64; rel++) {
		double best = 1e9;
		for (int round = 0; round < 3; round++) {
			int copies = 0;
			double start = now(), t;
			while ((t = now()) - start < 0.01) {
				rep_movsb(dst + rel, src, size);
				copies++;
			}
			if ((t - start) / copies < best)
				best = (t - start) / copies;
		}
		printf("%2d:%5.1f%s", rel, size / best / 1e9, rel % 8 == 7 ? "\n" : "  ");
	}
}

struct reader {
	int fd;
	size_t size, offset;
	int cpu; /* -1: not pinned */
};

/* Pins the calling thread to CPU cpu; -1: leaves it where it is. */
static void pin(int cpu)
{
	if (cpu < 0)
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0) {
		fprintf(stderr, "copy_align: cannot pin a thread to CPU %d\n", cpu);
		exit(1);
	}
}

static void *drain(void *arg)
{
	struct reader *r = arg;
	pin(r->cpu);
	char *buf = page_buffer(r->size + r->offset, 'r');
	while (recv(r->fd, buf + r->offset, r->size, 0) > 0)
		;
	free(buf);
	return NULL;
}

/*
 * GB/s over SECONDS of writes of [header][size bytes], read OFFSET bytes past a page boundary; with
 * PINNED, the writer on CPU 0 and the reader on CPU 1.
 */
static double stream(size_t size, size_t header, size_t offset, double seconds, int pinned)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int one = 1, listener = socket(AF_INET, SOCK_STREAM, 0), writer = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(listener, (void *) &a, sizeof(a)) || getsockname(listener, (void *) &a, &len)
	    || listen(listener, 1) || connect(writer, (void *) &a, sizeof(a))) {
		perror("loopback connection");
		exit(1);
	}
	struct reader r = { .fd = accept(listener, NULL, NULL), .size = size, .offset = offset, .cpu = pinned ? 1 : -1 };
	setsockopt(writer, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	pthread_t thread;
	pthread_create(&thread, NULL, drain, &r);
	pin(pinned ? 0 : -1);
	char *src = page_buffer(size, 'w'), head[64] = { 0 };
	size_t total = 0;
	double start = now();
	while (now() - start < seconds) {
		struct iovec iov[2] = { { head, header }, { src, size } };
		struct msghdr m = { .msg_iov = header ? iov : iov + 1, .msg_iovlen = header ? 2 : 1 };
		for (size_t left = header + size; left > 0;) {
			ssize_t sent = sendmsg(writer, &m, 0);
			if (sent <= 0) {
				perror("sendmsg");
				exit(1);
			}
			left -= sent;
			while (sent > 0) {
				size_t part = (size_t) sent < m.msg_iov->iov_len ? (size_t) sent : m.msg_iov->iov_len;
				m.msg_iov->iov_base = (char *) m.msg_iov->iov_base + part;
				m.msg_iov->iov_len -= part;
				sent -= part;
				if (m.msg_iov->iov_len == 0) {
					m.msg_iov++;
					m.msg_iovlen--;
				}
			}
		}
		total += header + size;
	}
	double gbs = total / (now() - start) / 1e9;
	shutdown(writer, SHUT_WR);
	pthread_join(thread, NULL);
	close(writer);
	close(r.fd);
	close(listener);
	free(src);
	return gbs;
}

int main(int argc, char **argv)
{
	size_t size = argc > 2 ? strtoul(argv[2], NULL, 0) : 1 << 20;
	if (argc > 1 && strcmp(argv[1], "movsb") == 0) {
		movsb(size);
	} else if (argc > 1 && strcmp(argv[1], "tcp") == 0) {
		for (size_t header = 0; header <= 40; header += 40) {
			printf("tcp, %zu-byte writes after a %zu-byte header, GB/s by the reader's offset:", size, header);
			for (size_t offset = 0; offset < 64; offset += 8)
				printf("  %zu:%.2f", offset, stream(size, header, offset, 1.0, 0));
			printf("\n");
		}
	} else if (argc > 2 && strcmp(argv[1], "stream") == 0) {
		printf("%.2f\n", stream(1 << 20, 0, 0, strtod(argv[2], NULL), 1));
	} else {
		fprintf(stderr, "usage: copy_align movsb|tcp [SIZE] | copy_align stream SECONDS\n");
		return 2;
	}
	return 0;
}

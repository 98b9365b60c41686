/*
 * cma_copy: what one cross-memory copy costs on this machine, the kernel's part of shm's messages
 * and writes above its inject size (4 KiB): shm's sender writes with process_vm_writev, its receiver
 * of a message reads with process_vm_readv. A child process holds a buffer; the parent copies SIZE
 * bytes from it and into it, ITERS times a burst, and prints the median of five bursts in us per
 * call, for each size given. On this project's machine 64 KiB took 5.7 us either way, against a
 * child that is a JVM or a C program alike (docs/PERFORMANCE.md, "shm at 64 KiB").
 *
 * Build: gcc -O2 -Wall -Wextra -o cma_copy bin/lib/cma_copy.c
 * Usage: cma_copy ITERS SIZE...
 * Exit status 1 when the copy is refused (ptrace_scope, or no CMA in the kernel): shm then has no
 * fast path either.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BURSTS 5
#define MAX_SIZE (64L << 20)

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median over BURSTS bursts of ITERS copies of size bytes, in us per copy; -1 if refused. */
static double measure(pid_t child, char *local, char *remote, size_t size, long iters, int write)
{
	double bursts[BURSTS];
	struct iovec l = { local, size }, r = { remote, size };
	for (int b = 0; b < BURSTS; b++) {
		double start = now();
		for (long i = 0; i < iters; i++) {
			ssize_t n = write ? process_vm_writev(child, &l, 1, &r, 1, 0)
					  : process_vm_readv(child, &l, 1, &r, 1, 0);
			if (n != (ssize_t)size) {
				perror(write ? "process_vm_writev" : "process_vm_readv");
				return -1;
			}
		}
		bursts[b] = (now() - start) * 1e6 / iters;
	}
	qsort(bursts, BURSTS, sizeof bursts[0], by_value);
	return bursts[BURSTS / 2];
}

int main(int argc, char **argv)
{
	if (argc < 3 || atol(argv[1]) < 1) {
		fprintf(stderr, "usage: cma_copy ITERS SIZE...\n");
		return 2;
	}
	long iters = atol(argv[1]);
	size_t largest = 0;
	for (int a = 2; a < argc; a++) {
		long size = atol(argv[a]);
		if (size < 1 || size > MAX_SIZE) {
			fprintf(stderr, "cma_copy: size %s is not within 1..%ld\n", argv[a], MAX_SIZE);
			return 2;
		}
		largest = (size_t)size > largest ? (size_t)size : largest;
	}
	size_t bytes = (largest + 4095) / 4096 * 4096;
	/* Both processes have the buffer at the same address: the child's copy of the parent's. */
	char *remote = aligned_alloc(4096, bytes), *local = aligned_alloc(4096, bytes);
	int ready[2];
	if (remote == NULL || local == NULL || pipe(ready) != 0) {
		perror("cma_copy");
		return 1;
	}
	memset(remote, 1, bytes);
	memset(local, 2, bytes);
	pid_t child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		memset(remote, 3, bytes); /* its own pages, not the parent's shared copy-on-write */
		char c = 1;
		if (write(ready[1], &c, 1) != 1) {
			_exit(1);
		}
		pause();
		_exit(0);
	}
	char c;
	int status = read(ready[0], &c, 1) == 1 ? 0 : 1;
	for (int a = 2; status == 0 && a < argc; a++) {
		size_t size = (size_t)atol(argv[a]);
		double readv = measure(child, local, remote, size, iters, 0);
		double writev = readv < 0 ? -1 : measure(child, local, remote, size, iters, 1);
		if (readv < 0 || writev < 0) {
			status = 1;
			break;
		}
		printf("%zu bytes: process_vm_readv %.3f us, process_vm_writev %.3f us per call\n", size, readv, writev);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return status;
}

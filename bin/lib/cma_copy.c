/*
 * cma_copy: what one cross-memory copy costs on this machine, the kernel's part of shm's messages
 * and writes above its inject size (4 KiB): shm's sender writes with process_vm_writev, its receiver
 * of a message reads with process_vm_readv. A child process holds a buffer; the parent copies SIZE
 * bytes from it and into it, ITERS times a burst, and prints the median of five bursts in us per
 * call, for each size given. It is a floor: the copying CPU's own caches hold both buffers, where a
 * pingpong's copy also moves lines between the two CPUs. On this project's machine 64 KiB took
 * 5.7 us either way (docs/PERFORMANCE.md, "shm at 64 KiB").
 *
 * Build: gcc -O2 -Wall -Wextra -o cma_copy bin/lib/cma_copy.c
 * Usage: cma_copy ITERS SIZE...
 * Exit status 1 when the copy is refused (ptrace_scope, or no CMA in the kernel): shm then has no
 * fast path either.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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
static double measure(pid_t child, char *local, char *remote, size_t size, long iters, int writing)
{
	double bursts[BURSTS];
	struct iovec l = { local, size }, r = { remote, size };
	const char *call = writing ? "process_vm_writev" : "process_vm_readv";
	for (int b = 0; b < BURSTS; b++) {
		double start = now();
		for (long i = 0; i < iters; i++) {
			ssize_t n = writing ? process_vm_writev(child, &l, 1, &r, 1, 0)
					    : process_vm_readv(child, &l, 1, &r, 1, 0);
			if (n < 0) {
				fprintf(stderr, "cma_copy: %s: %s\n", call, strerror(errno));
				return -1;
			}
			if (n != (ssize_t)size) {
				fprintf(stderr, "cma_copy: %s copied %zd of %zu bytes\n", call, n, size);
				return -1;
			}
		}
		bursts[b] = (now() - start) * 1e6 / iters;
	}
	qsort(bursts, BURSTS, sizeof bursts[0], by_value);
	return bursts[BURSTS / 2];
}

/* A whole decimal number within min..max, or -1. */
static long number(const char *text, long min, long max)
{
	char *end;
	errno = 0;
	long value = strtol(text, &end, 10);
	return errno != 0 || end == text || *end != '\0' || value < min || value > max ? -1 : value;
}

int main(int argc, char **argv)
{
	long iters = argc < 3 ? -1 : number(argv[1], 1, 1L << 30);
	if (iters < 0) {
		fprintf(stderr, "usage: cma_copy ITERS SIZE... (ITERS 1..2^30, each SIZE 1..%ld)\n", MAX_SIZE);
		return 2;
	}
	size_t largest = 0;
	for (int a = 2; a < argc; a++) {
		long size = number(argv[a], 1, MAX_SIZE);
		if (size < 0) {
			fprintf(stderr, "cma_copy: size %s is not a number within 1..%ld\n", argv[a], MAX_SIZE);
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
		/* Ends with the parent, whatever ends it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1) {
			_exit(1);
		}
		close(ready[0]);
		memset(remote, 3, bytes); /* its own pages, not the parent's shared copy-on-write */
		char c = 1;
		if (write(ready[1], &c, 1) != 1) {
			_exit(1);
		}
		pause();
		_exit(0);
	}
	close(ready[1]); /* a child that dies before it is ready ends the read below */
	char c;
	int status = read(ready[0], &c, 1) == 1 ? 0 : 1;
	if (status != 0) {
		fprintf(stderr, "cma_copy: the child ended before its buffer was ready\n");
	}
	for (int a = 2; status == 0 && a < argc; a++) {
		size_t size = (size_t)number(argv[a], 1, MAX_SIZE);
		double read_us = measure(child, local, remote, size, iters, 0);
		double write_us = read_us < 0 ? -1 : measure(child, local, remote, size, iters, 1);
		if (read_us < 0 || write_us < 0) {
			status = 1;
			break;
		}
		printf("%zu bytes: process_vm_readv %.3f us, process_vm_writev %.3f us per call\n", size, read_us,
		       write_us);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return status;
}

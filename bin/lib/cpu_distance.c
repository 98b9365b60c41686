/*
 * cpu_distance: how far apart the host has placed this machine's first two CPUs, as the one-way
 * time of a cache line between them: two threads pinned to CPU 0 and CPU 1 pass a counter back and
 * forth. Prints the median of five bursts in ns. On this project's machine the figure is 25-50 ns
 * in some phases and 160-180 ns in others; every copy between two processes (a loopback TCP
 * stream, shm's process_vm_writev) runs two to three times slower in the far placement
 * (docs/measurements/2026-11-27-tcp-two-speeds-the-host-s-placement-of-the-two-cpus.md).
 * bin/ofinet-compare runs it around every launch.
 *
 * Build: gcc -O2 -Wall -Wextra -o cpu_distance bin/lib/cpu_distance.c -lpthread
 * Exit status 1, with nothing printed, where there are not two CPUs to pin to.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BURSTS 5
#define ROUNDS 20000L

static _Alignas(64) _Atomic long ball;
static _Alignas(64) _Atomic int ready;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* CPU 1's side: answers each odd value with the next even one. */
static void *answer(void *arg)
{
	(void) arg;
	atomic_store(&ready, pin(1) == 0 ? 1 : -1);
	if (atomic_load(&ready) < 0)
		return NULL;
	for (long i = 1; i < 2 * BURSTS * ROUNDS; i += 2) {
		while (atomic_load_explicit(&ball, memory_order_acquire) != i)
			;
		atomic_store_explicit(&ball, i + 1, memory_order_release);
	}
	return NULL;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	pthread_t other;
	if (pin(0) != 0 || pthread_create(&other, NULL, answer, NULL) != 0)
		return 1;
	while (atomic_load(&ready) == 0)
		;
	if (atomic_load(&ready) < 0) {
		pthread_join(other, NULL);
		return 1;
	}
	double ns[BURSTS];
	long value = 0;
	for (int b = 0; b < BURSTS; b++) {
		double start = now();
		for (long r = 0; r < ROUNDS; r++, value += 2) {
			atomic_store_explicit(&ball, value + 1, memory_order_release);
			while (atomic_load_explicit(&ball, memory_order_acquire) != value + 2)
				;
		}
		ns[b] = (now() - start) * 1e9 / ROUNDS / 2;
	}
	pthread_join(other, NULL);
	qsort(ns, BURSTS, sizeof(ns[0]), by_value);
	printf("%.1f\n", ns[BURSTS / 2]);
	return 0;
}

/*
 * The C twin of the collectives' reduction (FloatSum): target[i] += in[i] over float32, compiled
 * with gcc -O3 when the benchmark starts, in AVX2 where the processor has it (as Open MPI's sum
 * picks its widest instructions at run time), else in the x86-64 baseline.
 */
__attribute__((target("avx2")))
static void add_avx2(float *restrict target, const float *restrict in, long n)
{
	for (long i = 0; i < n; i++)
		target[i] += in[i];
}

static void add_base(float *restrict target, const float *restrict in, long n)
{
	for (long i = 0; i < n; i++)
		target[i] += in[i];
}

void ofinet_sum_add(float *target, const float *in, long n)
{
	if (__builtin_cpu_supports("avx2"))
		add_avx2(target, in, n);
	else
		add_base(target, in, n);
}

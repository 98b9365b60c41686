/*
 * The C side of the data-path benchmarks: the same libfabric calls the Java benchmarks make,
 * in a loop, on the same objects (the Java side passes the fid pointers). Compiled with gcc
 * against libfabric-dev when the benchmark starts.
 */
#include <stdint.h>
#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

/* n reads of one entry from a (normally empty) completion queue; returns the last result. */
long ofinet_bench_cq_read(struct fid_cq *cq, void *buf, long n)
{
	long rc = 0;
	for (long i = 0; i < n; i++)
		rc = fi_cq_read(cq, buf, 1);
	return rc;
}

/* 1 when the queue yielded its completion, 0 when it is empty, or a negative error. */
static int completed(struct fid_cq *cq, struct fi_cq_data_entry *entry)
{
	ssize_t rc = fi_cq_read(cq, entry, 1);
	if (rc == -FI_EAGAIN)
		return 0;
	return rc == 1 ? 1 : (int) (rc < 0 ? rc : -FI_EOTHER);
}

/*
 * n rounds of: b posts a receive, a sends 8 bytes with immediate data, both queues are read
 * until each has its completion (with manual progress the send completes only while the
 * receiver's queue is read too). Returns 0, or the first negative libfabric error.
 */
long ofinet_bench_round(struct fid_ep *a, struct fid_cq *cq_a, struct fid_ep *b, struct fid_cq *cq_b,
			void *buf_a, void *desc_a, void *buf_b, void *desc_b, uint64_t a_to_b, long n)
{
	struct fi_cq_data_entry entry;
	for (long i = 0; i < n; i++) {
		ssize_t rc;
		while ((rc = fi_recv(b, buf_b, 64, desc_b, FI_ADDR_UNSPEC, NULL)) == -FI_EAGAIN) {
			fi_cq_read(cq_b, &entry, 0);
			fi_cq_read(cq_a, &entry, 0);
		}
		if (rc)
			return rc;
		while ((rc = fi_senddata(a, buf_a, 8, desc_a, (uint64_t) i, a_to_b, NULL)) == -FI_EAGAIN) {
			fi_cq_read(cq_a, &entry, 0);
			fi_cq_read(cq_b, &entry, 0);
		}
		if (rc)
			return rc;
		int sent = 0, received = 0;
		for (long spins = 0; !sent || !received; spins++) {
			int a_rc = sent ? 0 : completed(cq_a, &entry);
			int b_rc = received ? 0 : completed(cq_b, &entry);
			if (a_rc < 0 || b_rc < 0)
				return a_rc < 0 ? a_rc : b_rc;
			sent |= a_rc;
			received |= b_rc;
			if (spins > 100000000L)
				return -FI_ETIMEDOUT;
		}
	}
	return 0;
}

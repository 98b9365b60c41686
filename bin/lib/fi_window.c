/*
 * fi_window: a windowed RDMA-write bandwidth floor for bin/ofinet-compare bandwidth.
 *
 * Two processes on one host. The writer keeps WINDOW writes of SIZE bytes in flight into the
 * reader's registered buffer (slot i % WINDOW), for WARMUP and then ITERS writes; the reader
 * learns of each write and, after each phase, sends a zero-byte message back. The writer times
 * the second phase from its first post to that message, so the figure is end to end.
 *
 * How the reader learns of a write (-m):
 *   writedata  fi_writedata: the write carries 8 bytes of CQ data and completes at the reader.
 *   write-msg  fi_write, then, once it has completed at the writer, a zero-byte fi_senddata
 *              to the same peer on the same endpoint. On shm a write without remote CQ data
 *              takes the provider's fast path (the writer copies with process_vm_writev).
 *   rendezvous the shape of ofinet's protocol on tcp, for comparison rather than as a floor: the
 *              reader announces each write it awaits by a 48-byte message on a second endpoint
 *              (a control rail), WINDOW at first and one more for each write it has seen; the
 *              writer writes against an announcement, fi_write with a zero-byte fi_senddata
 *              posted right behind it on the same endpoint.
 *   announced  the shape of ofinet's protocol on tcp with one data rail (writeNotice tagged), for
 *              comparison: announcements as in rendezvous, but each announcement follows a
 *              receive of the whole buffer (fi_recv) that the reader posts for it, and the writer
 *              sends each transfer as one message (fi_send) against an announcement; no write, no
 *              notice. The eager limit is raised as for send.
 *   send       no write at all, for comparison: each transfer a message (fi_send) into one of
 *              WINDOW receives the reader keeps posted. The program raises ofi_rxm's eager limit
 *              (FI_OFI_RXM_EAGER_LIMIT, unless set) to SIZE, so that rxm sends each message whole
 *              and tcp places it straight into the receive's buffer; a message that arrives before
 *              its receive is posted waits in a buffer rxm allocates, and is copied from there.
 *
 * Addresses and the buffer's address and key travel over a TCP socket on 127.0.0.1:PORT.
 *
 *   fi_window -p PROVIDER -s SIZE -w WINDOW -n ITERS -W WARMUP -m SCHEME -P PORT        (reader)
 *   fi_window -p PROVIDER -s SIZE -w WINDOW -n ITERS -W WARMUP -m SCHEME -P PORT -c     (writer)
 *
 * The writer prints: size window iters usec MB/s (MB = 10^6 bytes).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define CHECK(call) do { long rc_ = (long) (call); if (rc_) die(#call, rc_); } while (0)
#define NOTICE_RECEIVES 256
#define ANNOUNCEMENT_SIZE 48

struct peer_info {
	uint64_t addr_len;
	char addr[128];
	uint64_t ctrl_addr_len;
	char ctrl_addr[128];
	uint64_t buf;
	uint64_t key;
};

static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_ep *ep, *ctrl_ep;
static struct fid_cq *cq, *ctrl_cq;
static struct fid_av *av;
static struct fi_info *info;

static void die(const char *what, long rc)
{
	fprintf(stderr, "fi_window: %s: %ld (%s)\n", what, rc, fi_strerror((int) (rc < 0 ? -rc : rc)));
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int oob_connect(int port, int writer)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (writer) {
		for (int tries = 0; connect(fd, (struct sockaddr *) &sa, sizeof(sa)); tries++) {
			if (tries > 200)
				die("connect to the reader", -errno);
			usleep(25000);
			close(fd);
			fd = socket(AF_INET, SOCK_STREAM, 0);
		}
		return fd;
	}
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	CHECK(bind(fd, (struct sockaddr *) &sa, sizeof(sa)) ? -errno : 0);
	CHECK(listen(fd, 1) ? -errno : 0);
	int conn = accept(fd, NULL, NULL);
	if (conn < 0)
		die("accept", -errno);
	close(fd);
	return conn;
}

static void oob_exchange(int fd, struct peer_info *mine, struct peer_info *theirs)
{
	if (write(fd, mine, sizeof(*mine)) != sizeof(*mine))
		die("write to the peer", -errno);
	size_t got = 0;
	while (got < sizeof(*theirs)) {
		ssize_t n = read(fd, (char *) theirs + got, sizeof(*theirs) - got);
		if (n <= 0)
			die("read from the peer", n < 0 ? -errno : -FI_ENOTCONN);
		got += n;
	}
}

static void open_endpoint(struct fid_ep **e, struct fid_cq **q)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA, .size = 4096 };
	CHECK(fi_cq_open(domain, &cq_attr, q, NULL));
	CHECK(fi_endpoint(domain, info, e, NULL));
	CHECK(fi_ep_bind(*e, &(*q)->fid, FI_TRANSMIT | FI_RECV));
	CHECK(fi_ep_bind(*e, &av->fid, 0));
	CHECK(fi_enable(*e));
}

static void open_fabric(const char *provider, int control)
{
	struct fi_info *hints = fi_allocinfo();
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_RMA | FI_WRITE | FI_REMOTE_WRITE;
	hints->mode = FI_CONTEXT;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY
				      | FI_MR_ENDPOINT;
	hints->fabric_attr->prov_name = strdup(provider);
	int shm = strncmp(provider, "shm", 3) == 0;
	CHECK(fi_getinfo(FI_VERSION(1, 17), shm ? NULL : "127.0.0.1", NULL, shm ? 0 : FI_SOURCE, hints, &info));
	fi_freeinfo(hints);
	CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
	CHECK(fi_domain(fabric, info, &domain, NULL));
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE, .count = 4 };
	CHECK(fi_av_open(domain, &av_attr, &av, NULL));
	open_endpoint(&ep, &cq);
	if (control)
		open_endpoint(&ctrl_ep, &ctrl_cq);
}

static struct fid_mr *register_buffer(void *buf, size_t len, uint64_t access, uint64_t key, struct fid_ep *on)
{
	struct fid_mr *mr;
	CHECK(fi_mr_reg(domain, buf, len, access, 0, key, info->domain_attr->mr_mode & FI_MR_ENDPOINT
			? FI_MR_ENDPOINT : 0, &mr, NULL));
	if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
		CHECK(fi_mr_bind(mr, &on->fid, 0));
		CHECK(fi_mr_enable(mr));
	}
	return mr;
}

/* Reads one completion of queue q; returns its flags, or 0 when the queue was empty. */
static uint64_t poll_queue(struct fid_cq *q, struct fi_cq_data_entry *entry)
{
	ssize_t rc = fi_cq_read(q, entry, 1);
	if (rc == 1)
		return entry->flags | 1;
	if (rc == -FI_EAGAIN)
		return 0;
	if (rc == -FI_EAVAIL) {
		struct fi_cq_err_entry err = { 0 };
		fi_cq_readerr(q, &err, 0);
		die(fi_cq_strerror(q, err.prov_errno, err.err_data, NULL, 0), -err.err);
	}
	die("fi_cq_read", rc);
	return 0;
}

static uint64_t poll_cq(struct fi_cq_data_entry *entry)
{
	return poll_queue(cq, entry);
}

/*
 * The writer's read of one completion: counts it if it is the reader's answer to a phase, and
 * returns whether it was one of the writer's own operations.
 */
static int writer_completion(struct fi_cq_data_entry *entry, long *answers)
{
	uint64_t flags = poll_cq(entry);
	if (!flags)
		return 0;
	if (flags & FI_RECV) {
		(*answers)++;
		return 0;
	}
	return 1;
}

/* The writer's receives for the reader's answers, one after each phase. */
static void post_answer_receives(char *small, void *small_desc, struct fi_context *contexts)
{
	CHECK(fi_recv(ep, small, 64, small_desc, FI_ADDR_UNSPEC, &contexts[0]));
	CHECK(fi_recv(ep, small + 64, 64, small_desc, FI_ADDR_UNSPEC, &contexts[1]));
}

/* The writer's figure, printed; then the reader may close. */
static void report(int fd, size_t size, long window, long iters, double elapsed)
{
	printf("%zu %ld %ld %.2f %.1f\n", size, window, iters, elapsed, (double) size * iters / elapsed);
	if (write(fd, "x", 1) != 1)
		die("write", -errno);
}

/* The reader, done: lets the last answer leave before the endpoints close. */
static void reader_finish(int fd)
{
	struct fi_cq_data_entry entry;
	char byte;
	if (read(fd, &byte, 1) < 0)
		die("read", -errno);
	for (int i = 0; i < 1000; i++) {
		fi_cq_read(cq, &entry, 1);
		if (ctrl_cq)
			fi_cq_read(ctrl_cq, &entry, 1);
	}
}

/* What both sides of the rendezvous scheme use. */
struct rendezvous {
	char *buf, *small, *ctrl_small;
	void *desc, *small_desc, *ctrl_desc;
	size_t size;
	long window, warmup, iters;
	fi_addr_t peer, peer_ctrl;
	struct peer_info *theirs;
	int message; /* announced: a message into a receive posted before each announcement, no write */
};

/*
 * Contexts in rotation: the reader's announcements, of which at most WINDOW are ahead of the
 * writes it has seen, and the writer's posted control receives.
 */
static struct fi_context *ring_context(long n)
{
	static struct fi_context ring[1024];
	return &ring[n % 1024];
}

/* Reaps the control endpoint's completions; returns the announcements that arrived. */
static long reap_control(struct rendezvous *r)
{
	struct fi_cq_data_entry entry;
	long arrived = 0;
	uint64_t flags;
	while ((flags = poll_queue(ctrl_cq, &entry))) {
		if (flags & FI_RECV) {
			arrived++;
			CHECK(fi_recv(ctrl_ep, r->ctrl_small, 64, r->ctrl_desc, FI_ADDR_UNSPEC, entry.op_context));
		}
	}
	return arrived;
}

/* The reader: announces each write it awaits, counts the notices, answers each phase. */
static void rendezvous_reader(struct rendezvous *r, struct fi_context *contexts)
{
	struct fi_cq_data_entry entry;
	for (long i = 0; i < NOTICE_RECEIVES && !r->message; i++)
		CHECK(fi_recv(ep, r->small, 64, r->small_desc, FI_ADDR_UNSPEC, &contexts[i]));
	long total = r->warmup + r->iters, announced = 0, seen = 0, received = 0;
	long phase_end[2] = { r->warmup, total };
	for (int phase = 0; phase < 2; phase++) {
		while (seen < phase_end[phase]) {
			while (announced < total && announced < seen + r->window) {
				if (r->message && received == announced) {
					/* The receive for this transfer, before its announcement. */
					ssize_t rc = fi_recv(ep, r->buf, r->size, r->desc, FI_ADDR_UNSPEC,
							     &contexts[announced % r->window]);
					if (rc == -FI_EAGAIN)
						break;
					CHECK(rc);
					received++;
				}
				ssize_t rc = fi_senddata(ctrl_ep, r->ctrl_small, ANNOUNCEMENT_SIZE, r->ctrl_desc, announced,
							 r->peer_ctrl, ring_context(announced));
				if (rc == -FI_EAGAIN)
					break;
				CHECK(rc);
				announced++;
			}
			reap_control(r);
			uint64_t flags = poll_cq(&entry);
			if (flags & FI_RECV) {
				seen++;
				if (!r->message)
					CHECK(fi_recv(ep, r->small, 64, r->small_desc, FI_ADDR_UNSPEC, entry.op_context));
			}
		}
		ssize_t rc;
		while ((rc = fi_senddata(ep, r->small, 0, r->small_desc, phase, r->peer, &contexts[NOTICE_RECEIVES]))
		       == -FI_EAGAIN)
			poll_cq(&entry);
		CHECK(rc);
	}
}

/*
 * The writer: a write and its notice, right behind it, against each announcement; a slot is free
 * again when both have completed. Returns the timed phase's microseconds.
 */
static double rendezvous_writer(struct rendezvous *r, struct fi_context *contexts, struct fi_context *notices)
{
	struct fi_cq_data_entry entry, scratch;
	for (long i = 0; i < NOTICE_RECEIVES; i++)
		CHECK(fi_recv(ctrl_ep, r->ctrl_small, 64, r->ctrl_desc, FI_ADDR_UNSPEC, ring_context(i)));
	int *awaiting = calloc(r->window, sizeof(int));
	long *next_free = calloc(r->window, sizeof(long));
	long free_count = r->window, pending = 0, posted = 0, answers = 0;
	long phase_end[2] = { r->warmup, r->warmup + r->iters };
	for (long i = 0; i < r->window; i++)
		next_free[i] = i;
	double start = 0;
	for (int phase = 0; phase < 2; phase++) {
		if (phase == 1)
			start = now_us();
		while (answers <= phase) {
			pending += reap_control(r);
			while (pending > 0 && posted < phase_end[phase] && free_count > 0) {
				long slot = next_free[free_count - 1];
				ssize_t rc = r->message ? fi_send(ep, r->buf, r->size, r->desc, r->peer, &contexts[slot])
					: fi_write(ep, r->buf, r->size, r->desc, r->peer, r->theirs->buf, r->theirs->key,
						   &contexts[slot]);
				if (rc == -FI_EAGAIN)
					break;
				CHECK(rc);
				while (!r->message && (rc = fi_senddata(ep, r->small + 128, 0, r->small_desc, posted,
									r->peer, &notices[slot])) == -FI_EAGAIN)
					fi_cq_read(cq, &scratch, 0);
				CHECK(rc);
				awaiting[slot] = r->message ? 1 : 2;
				free_count--;
				pending--;
				posted++;
			}
			if (!writer_completion(&entry, &answers))
				continue;
			struct fi_context *c = entry.op_context;
			long slot = c >= notices && c < notices + r->window ? c - notices : c - contexts;
			if (--awaiting[slot] == 0)
				next_free[free_count++] = slot;
		}
	}
	double elapsed = now_us() - start;
	/* What is left here are local completions. */
	for (double until = now_us() + 1e6; free_count < r->window && now_us() < until;) {
		uint64_t flags = poll_cq(&entry);
		if (flags && !(flags & FI_RECV)) {
			struct fi_context *c = entry.op_context;
			long slot = c >= notices && c < notices + r->window ? c - notices : c - contexts;
			if (--awaiting[slot] == 0)
				free_count++;
		}
	}
	free(awaiting);
	free(next_free);
	return elapsed;
}

int main(int argc, char **argv)
{
	const char *provider = "tcp;ofi_rxm", *scheme = "writedata";
	size_t size = 1 << 20;
	long window = 16, iters = 1000, warmup = 200;
	int port = 47592, writer = 0, opt;
	while ((opt = getopt(argc, argv, "p:s:w:n:W:m:P:c")) != -1) {
		switch (opt) {
		case 'p': provider = optarg; break;
		case 's': size = strtoull(optarg, NULL, 0); break;
		case 'w': window = strtol(optarg, NULL, 0); break;
		case 'n': iters = strtol(optarg, NULL, 0); break;
		case 'W': warmup = strtol(optarg, NULL, 0); break;
		case 'm': scheme = optarg; break;
		case 'P': port = atoi(optarg); break;
		case 'c': writer = 1; break;
		default:
			fprintf(stderr, "usage: fi_window -p PROVIDER -s SIZE -w WINDOW -n ITERS -W WARMUP"
				" -m writedata|write-msg|rendezvous|announced|send -P PORT [-c]\n");
			return 2;
		}
	}
	int notice_msg = strcmp(scheme, "write-msg") == 0, announced = strcmp(scheme, "announced") == 0;
	int rdv = strcmp(scheme, "rendezvous") == 0 || announced, send_msg = strcmp(scheme, "send") == 0;
	if (!notice_msg && !rdv && !send_msg && strcmp(scheme, "writedata"))
		die("unknown scheme (writedata, write-msg, rendezvous, announced, send)", -FI_EINVAL);
	if (window < 1 || window > 1024)
		die("window out of range 1..1024", -FI_EINVAL);
	if (send_msg || announced) {
		char limit[32];
		snprintf(limit, sizeof(limit), "%zu", size);
		setenv("FI_OFI_RXM_EAGER_LIMIT", limit, 0);
	}

	open_fabric(provider, rdv);
	size_t region = size;
	char *buf = aligned_alloc(4096, (region + 4095) / 4096 * 4096);
	memset(buf, writer ? 'w' : 'r', region);
	struct fid_mr *mr = register_buffer(buf, region, writer ? FI_WRITE | FI_SEND | FI_RECV : FI_REMOTE_WRITE
					    | FI_SEND | FI_RECV, 1, ep);
	char *small = aligned_alloc(4096, 4096);
	struct fid_mr *small_mr = register_buffer(small, 4096, FI_SEND | FI_RECV, 2, ep);
	void *desc = fi_mr_desc(mr), *small_desc = fi_mr_desc(small_mr);
	char *ctrl_small = aligned_alloc(4096, 4096);
	struct fid_mr *ctrl_mr = rdv ? register_buffer(ctrl_small, 4096, FI_SEND | FI_RECV, 3, ctrl_ep) : NULL;

	struct peer_info mine = { .addr_len = sizeof(mine.addr), .ctrl_addr_len = sizeof(mine.ctrl_addr) }, theirs;
	CHECK(fi_getname(&ep->fid, mine.addr, &mine.addr_len));
	if (rdv)
		CHECK(fi_getname(&ctrl_ep->fid, mine.ctrl_addr, &mine.ctrl_addr_len));
	mine.buf = info->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? (uint64_t) (uintptr_t) buf : 0;
	mine.key = fi_mr_key(mr);
	int fd = oob_connect(port, writer);
	oob_exchange(fd, &mine, &theirs);
	fi_addr_t peer, peer_ctrl = FI_ADDR_UNSPEC;
	if (fi_av_insert(av, theirs.addr, 1, &peer, 0, NULL) != 1)
		die("fi_av_insert", -FI_EADDRNOTAVAIL);
	if (rdv && fi_av_insert(av, theirs.ctrl_addr, 1, &peer_ctrl, 0, NULL) != 1)
		die("fi_av_insert", -FI_EADDRNOTAVAIL);

	struct fi_cq_data_entry entry, scratch;
	static struct fi_context contexts[NOTICE_RECEIVES + 1024 + 2], notices[1024];
	struct rendezvous r = {
		.buf = buf, .small = small, .ctrl_small = ctrl_small, .desc = desc, .small_desc = small_desc,
		.ctrl_desc = rdv ? fi_mr_desc(ctrl_mr) : NULL, .size = size, .window = window, .warmup = warmup,
		.iters = iters, .peer = peer, .peer_ctrl = peer_ctrl, .theirs = &theirs, .message = announced,
	};
	if (rdv && writer) {
		post_answer_receives(small, small_desc, &contexts[NOTICE_RECEIVES + 1024]);
		report(fd, size, window, iters, rendezvous_writer(&r, contexts, notices));
	} else if (rdv) {
		rendezvous_reader(&r, contexts);
		reader_finish(fd);
	} else if (!writer) {
		/* The reader: count the writes' notices (or the messages) per phase and answer each phase. */
		long receives = send_msg ? window : notice_msg ? NOTICE_RECEIVES : 0;
		for (long i = 0; i < receives; i++)
			CHECK(send_msg ? fi_recv(ep, buf, size, desc, FI_ADDR_UNSPEC, &contexts[i])
			      : fi_recv(ep, small, 64, small_desc, FI_ADDR_UNSPEC, &contexts[i]));
		long phase_end[2] = { warmup, warmup + iters }, seen = 0;
		for (int phase = 0; phase < 2; phase++) {
			while (seen < phase_end[phase]) {
				uint64_t flags = poll_cq(&entry);
				if (!flags)
					continue;
				if (send_msg && (flags & FI_RECV)) {
					seen++;
					CHECK(fi_recv(ep, buf, size, desc, FI_ADDR_UNSPEC, entry.op_context));
				} else if (notice_msg && (flags & FI_RECV)) {
					seen++;
					CHECK(fi_recv(ep, small, 64, small_desc, FI_ADDR_UNSPEC, entry.op_context));
				} else if (!notice_msg && (flags & FI_REMOTE_CQ_DATA)) {
					seen++;
				}
			}
			ssize_t rc;
			while ((rc = fi_senddata(ep, small, 0, small_desc, phase, peer, &contexts[NOTICE_RECEIVES]))
			       == -FI_EAGAIN)
				poll_cq(&entry);
			CHECK(rc);
		}
		reader_finish(fd);
	} else {
		/* The writer: contexts[0..window) are the writes' slots. */
		post_answer_receives(small, small_desc, &contexts[NOTICE_RECEIVES + 1024]);
		long posted = 0, answers = 0;
		long phase_end[2] = { warmup, warmup + iters };
		double start = 0, elapsed = 0;
		long outstanding = 0;
		int *noticing = calloc(window, sizeof(int));
		long *next_free = calloc(window, sizeof(long));
		long free_count = window;
		for (long i = 0; i < window; i++)
			next_free[i] = i;
		for (int phase = 0; phase < 2; phase++) {
			if (phase == 1)
				start = now_us();
			while (answers <= phase) {
				while (posted < phase_end[phase] && free_count > 0) {
					long slot = next_free[free_count - 1];
					uint64_t remote = theirs.buf;
					ssize_t rc = send_msg ? fi_send(ep, buf, size, desc, peer, &contexts[slot])
						: notice_msg
						? fi_write(ep, buf, size, desc, peer, remote, theirs.key, &contexts[slot])
						: fi_writedata(ep, buf, size, desc, posted, peer, remote, theirs.key,
							       &contexts[slot]);
					if (rc == -FI_EAGAIN)
						break;
					CHECK(rc);
					free_count--;
					posted++;
					outstanding++;
				}
				if (!writer_completion(&entry, &answers))
					continue;
				long slot = (struct fi_context *) entry.op_context - contexts;
				if (notice_msg && !noticing[slot]) {
					ssize_t rc;
					while ((rc = fi_senddata(ep, small + 128, 0, small_desc, slot, peer,
								 &contexts[slot])) == -FI_EAGAIN)
						fi_cq_read(cq, &scratch, 0);
					CHECK(rc);
					noticing[slot] = 1;
					continue;
				}
				noticing[slot] = 0;
				next_free[free_count++] = slot;
				outstanding--;
			}
		}
		elapsed = now_us() - start;
		report(fd, size, window, iters, elapsed);
		/* The reader saw every write: what is left here are local completions. */
		for (double until = now_us() + 1e6; outstanding > 0 && now_us() < until;) {
			uint64_t flags = poll_cq(&entry);
			if (flags && !(flags & FI_RECV))
				outstanding -= noticing[(struct fi_context *) entry.op_context - contexts] || !notice_msg;
		}
	}
	close(fd);
	CHECK(fi_close(&mr->fid));
	CHECK(fi_close(&small_mr->fid));
	if (rdv) {
		CHECK(fi_close(&ctrl_mr->fid));
		CHECK(fi_close(&ctrl_ep->fid));
		CHECK(fi_close(&ctrl_cq->fid));
	}
	CHECK(fi_close(&ep->fid));
	CHECK(fi_close(&av->fid));
	CHECK(fi_close(&cq->fid));
	CHECK(fi_close(&domain->fid));
	CHECK(fi_close(&fabric->fid));
	fi_freeinfo(info);
	return 0;
}

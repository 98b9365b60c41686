/*
 * Tag interleavings through the table (nccl_driver tags): sends meet receive buffers by tag and
 * ordinal, the k-th send with a tag filling the k-th receive buffer with that tag, receives counted
 * in posting order and the buffers of a grouped receive in index order. This process receives and
 * its forked child sends. Scenarios (a message is the sends meant for one receive):
 *   1  two grouped receives of tags 0-7; sends 0-6 of the first, 1 of the second, 7 of the first,
 *      then the rest of the second
 *   2  a receive of tag 8, then a grouped one of tags 0-7; sends 0, 8, 1, ..., 7
 *   3  receives {30, 31}, {20}, {40}; sends 30, 40, 31, 20
 *   4  two grouped receives of tags 0-7; the sends alternate between them: 0 0 1 1 ... 7 7
 * each with all sends small (eager), all large (64 KiB and 1 MiB) and mixed within each receive,
 * and each twice: the receiver posting each receive only once the one before completed, and
 * posting them all ahead. Every run has a communicator of its own. The sender retries an isend that
 * returned a NULL request on its next pass and tests its requests oldest-first, as NCCL's proxy
 * does; so does the receiver. Each send's bytes are a pattern of its (message, tag); every received
 * buffer, its reported size, and the bytes and canaries past it are checked. Arguments, if any,
 * name the scenarios to run (nccl_driver tags 2 3); else all run.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

#define MAX_MESSAGES 3
#define MAX_SENDS 16
/*
 * A run's deadline, from its first idle pass: a run takes well under a second, the first of a
 * process up to 9 s with five drivers on two cores (the JIT's warm-up); this only bounds a failure.
 */
#define RUN_SECONDS WAIT_SECONDS
/* Bytes of each receive buffer beyond the message it expects, checked to stay untouched. */
#define SLACK 512
#define REGION_BYTES (20 * MiB)
/*
 * After this many failed runs the rest are skipped, so that a failure's report comes in bounded time:
 * three runs' deadlines stay within NcclDriverIT's bound of 240 s.
 */
#define MAX_FAILED_RUNS 3

struct scenario {
    int number;
    const char *what;
    int nrecvs;
    int nbufs[MAX_MESSAGES];
    int tags[MAX_MESSAGES][MAX_RECVS];
    int nsends;
    /* Each send's message (the receive it is meant for) and tag, in sending order. */
    int message[MAX_SENDS];
    int tag[MAX_SENDS];
};

static const struct scenario SCENARIOS[] = {
    {1, "tags 0-7 twice; the second message's tag 1 before the first's tag 7", 2, {8, 8},
     {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}}, 16,
     {0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1},
     {0, 1, 2, 3, 4, 5, 6, 1, 7, 0, 2, 3, 4, 5, 6, 7}},
    {2, "{8} then {0-7}; sends 0, 8, 1-7", 2, {1, 8}, {{8}, {0, 1, 2, 3, 4, 5, 6, 7}}, 9,
     {1, 0, 1, 1, 1, 1, 1, 1, 1},
     {0, 8, 1, 2, 3, 4, 5, 6, 7}},
    {3, "{30, 31}, {20}, {40}; sends 30, 40, 31, 20", 3, {2, 1, 1}, {{30, 31}, {20}, {40}}, 4,
     {0, 2, 0, 1},
     {30, 40, 31, 20}},
    {4, "tags 0-7 twice; every send alternates between the messages", 2, {8, 8},
     {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}}, 16,
     {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1},
     {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7}},
};
#define NSCENARIOS (int)(sizeof SCENARIOS / sizeof SCENARIOS[0])

enum sizes { SMALL, LARGE, MIXED };
static const char *const SIZE_NAMES[] = {"small", "large", "mixed"};

/* The pattern of a send: distinct for every (message, tag), as 7 is odd and seeds stay below 256. */
static unsigned seed_of(int message, int tag) {
    return (unsigned)(message * 64 + tag + 1);
}

/*
 * The size of a send, known to both sides: about 1 KiB (eager), or 64 KiB or 1 MiB (above
 * eagerMaxSize, so written, or one tagged message on tcp's default), a few bytes apart so that a
 * buffer filled by the wrong send shows in its size. Mixed: small and large alternate within each
 * receive.
 */
static size_t size_of(enum sizes sizes, int message, int tag) {
    size_t apart = (size_t)(8 * tag + message);
    size_t small = 1024 + apart;
    size_t large = ((message + tag) % 2 == 0 ? 64 * 1024 : MiB) + apart;
    if (sizes == SMALL) {
        return small;
    }
    if (sizes == LARGE) {
        return large;
    }
    if ((message + tag) % 2 == 0) {
        return small;
    }
    return ((message + tag) / 2 % 2 == 0 ? 64 * 1024 : MiB) + apart;
}

/* The scenario's own check: its sends meet its receives' buffers by tag and ordinal as written. */
static int consistent(const struct scenario *sc) {
    for (int m = 0; m < sc->nrecvs; m++) {
        for (int b = 0; b < sc->nbufs[m]; b++) {
            int tag = sc->tags[m][b];
            /* The buffer's ordinal among the buffers of its tag, receives in order, buffers in index order. */
            int ordinal = 0;
            for (int pm = 0; pm <= m; pm++) {
                for (int pb = 0; pb < (pm == m ? b : sc->nbufs[pm]); pb++) {
                    ordinal += sc->tags[pm][pb] == tag;
                }
            }
            int seen = 0, meant = -1;
            for (int i = 0; i < sc->nsends; i++) {
                if (sc->tag[i] == tag && seen++ == ordinal) {
                    meant = sc->message[i];
                }
            }
            if (meant != m) {
                return 0;
            }
        }
    }
    return 1;
}

/* Where each send's bytes (sender) or each buffer (receiver) lies in the region, canaries between. */
struct layout {
    size_t offset[MAX_MESSAGES][MAX_RECVS];
    size_t capacity[MAX_MESSAGES][MAX_RECVS];
};

static int lay_out(const struct scenario *sc, enum sizes sizes, struct layout *l) {
    size_t at = CANARY;
    for (int m = 0; m < sc->nrecvs; m++) {
        for (int b = 0; b < sc->nbufs[m]; b++) {
            l->offset[m][b] = at;
            l->capacity[m][b] = size_of(sizes, m, sc->tags[m][b]) + SLACK;
            at += (l->capacity[m][b] + CANARY + 63) / 64 * 64 + CANARY;
        }
    }
    return at <= REGION_BYTES;
}

/* The buffer of message m that send i fills: its tag's place in the message. */
static int buffer_of(const struct scenario *sc, int i) {
    int m = sc->message[i];
    for (int b = 0; b < sc->nbufs[m]; b++) {
        if (sc->tags[m][b] == sc->tag[i]) {
            return b;
        }
    }
    return -1;
}

struct run {
    struct side *s;
    const struct scenario *sc;
    enum sizes sizes;
    int ahead; /* the receiver posts every receive ahead, not each once the one before completed */
    char name[160];
    int met; /* this side met the peer once the receives to be posted first were */
    unsigned char *region;
    struct layout l;
    void *comm;
    void *mr;
};

/* Names the send whose bytes a wrongly filled buffer holds, if any: a misrouting's report. */
static void name_holder(struct run *r, const unsigned char *p, int got) {
    static unsigned char expected[256];
    for (int i = 0; i < r->sc->nsends; i++) {
        int m = r->sc->message[i], t = r->sc->tag[i];
        size_t n = size_of(r->sizes, m, t);
        size_t head = n < sizeof expected ? n : sizeof expected;
        fill_pattern(expected, head, seed_of(m, t));
        if (head > 0 && memcmp(p, expected, head) == 0) {
            printf("  (it holds the bytes of send %d: message %d, tag %d, %zu bytes; %d reported)\n", i, m, t, n, got);
            return;
        }
    }
    printf("  (it holds the bytes of no send of this run; %d reported)\n", got);
}

/* Checks receive m's buffers once it completed with sizes got[]. */
static int received_intact(struct run *r, int m, const int *got) {
    int ok = 1;
    for (int b = 0; b < r->sc->nbufs[m]; b++) {
        int tag = r->sc->tags[m][b];
        size_t size = size_of(r->sizes, m, tag), capacity = r->l.capacity[m][b];
        unsigned char *p = r->region + r->l.offset[m][b];
        int bytes = got[b] == (int)size && has_pattern(p, size, seed_of(m, tag));
        int past = 1;
        for (size_t i = size; i < capacity && past; i++) {
            past = p[i] == EMPTY_BYTE;
        }
        int canaries = canaries_intact(p, capacity);
        if (!bytes || !past || !canaries) {
            printf("  (%s: receive %d, buffer %d, tag %d: expected %zu bytes of message %d, %d reported; %s%s)\n",
                   r->name, m, b, tag, size, m, got[b], past ? "" : "bytes written past the message; ",
                   canaries ? "canaries intact" : "a canary overwritten");
            if (!bytes) {
                name_holder(r, p, got[b]);
            }
            ok = 0;
        }
    }
    return ok;
}

static int post_receive(struct run *r, int m, void **req) {
    void *data[MAX_RECVS], *mrs[MAX_RECVS];
    size_t capacities[MAX_RECVS];
    int tags[MAX_RECVS];
    for (int b = 0; b < r->sc->nbufs[m]; b++) {
        data[b] = r->region + r->l.offset[m][b];
        capacities[b] = r->l.capacity[m][b];
        tags[b] = r->sc->tags[m][b];
        mrs[b] = r->mr;
    }
    ncclResult_t res = r->s->net->irecv(r->comm, r->sc->nbufs[m], data, capacities, tags, mrs, NULL, req);
    if (res != ncclSuccess) {
        printf("  (%s: irecv of receive %d (%d buffers): result %d: \"%s\")\n", r->name, m, r->sc->nbufs[m], res,
               last_warning());
        return 0;
    }
    return 1;
}

/*
 * The receiver: posts receive 0 (and, ahead, every other), meets the sender, then tests its
 * receives oldest-first, posting the next one once the one before completed when not ahead. An
 * irecv that returns a NULL request is called again on the next pass.
 */
static int receive_all(struct run *r) {
    const struct scenario *sc = r->sc;
    ncclNet_v12_t *net = r->s->net;
    void *reqs[MAX_MESSAGES] = {NULL};
    int posted = 0, completed = 0, nulls = 0;
    struct idle_polls wait = {.seconds = RUN_SECONDS};
    memset(r->region, CANARY_BYTE, REGION_BYTES);
    for (int m = 0; m < sc->nrecvs; m++) {
        for (int b = 0; b < sc->nbufs[m]; b++) {
            memset(r->region + r->l.offset[m][b], EMPTY_BYTE, r->l.capacity[m][b]);
        }
    }
    while (completed < sc->nrecvs) {
        int progressed = 0;
        int allowed = r->ahead ? sc->nrecvs : completed + 1;
        while (posted < allowed && posted < sc->nrecvs) {
            void *req = NULL;
            if (!post_receive(r, posted, &req)) {
                return 0;
            }
            if (req == NULL) {
                nulls++;
                break;
            }
            reqs[posted++] = req;
            progressed = 1;
        }
        /* The sender starts once the receives to be posted first are. */
        if (!r->met && posted == (r->ahead ? sc->nrecvs : 1)) {
            rendezvous(r->s, "receives posted");
            r->met = 1;
        }
        if (completed < posted) {
            int done = 0, got[MAX_RECVS];
            for (int b = 0; b < MAX_RECVS; b++) {
                got[b] = -1;
            }
            ncclResult_t res = net->test(reqs[completed], &done, got);
            if (res != ncclSuccess) {
                printf("  (%s: test of receive %d: result %d: \"%s\")\n", r->name, completed, res, last_warning());
                return 0;
            }
            if (done) {
                if (!received_intact(r, completed, got)) {
                    return 0;
                }
                completed++;
                progressed = 1;
            }
        }
        if (progressed) {
            wait.idle = 0;
        } else if (!idle_poll(&wait)) {
            printf("  (%s: receive %d of %d not complete after %.0f s; %d posted, %d irecv(s) returned NULL)\n",
                   r->name, completed, sc->nrecvs, RUN_SECONDS, posted, nulls);
            return 0;
        }
    }
    if (nulls > 0) {
        printf("  (%s: %d irecv(s) returned NULL and were called again)\n", r->name, nulls);
    }
    return 1;
}

/*
 * The sender: posts its sends in order, calling an isend that returned a NULL request again on the
 * next pass, and tests them oldest-first, as NCCL's proxy does.
 */
static int send_all(struct run *r) {
    const struct scenario *sc = r->sc;
    ncclNet_v12_t *net = r->s->net;
    void *reqs[MAX_SENDS] = {NULL};
    int posted = 0, completed = 0, nulls = 0;
    struct idle_polls wait = {.seconds = RUN_SECONDS};
    for (int i = 0; i < sc->nsends; i++) {
        int m = sc->message[i], t = sc->tag[i];
        fill_pattern(r->region + r->l.offset[m][buffer_of(sc, i)], size_of(r->sizes, m, t), seed_of(m, t));
    }
    rendezvous(r->s, "receives posted");
    r->met = 1;
    while (completed < sc->nsends) {
        int progressed = 0;
        while (posted < sc->nsends) {
            int m = sc->message[posted], t = sc->tag[posted];
            void *req = NULL;
            ncclResult_t res = net->isend(r->comm, r->region + r->l.offset[m][buffer_of(sc, posted)],
                                          size_of(r->sizes, m, t), t, r->mr, NULL, &req);
            if (res != ncclSuccess) {
                printf("  (%s: isend %d (message %d, tag %d): result %d: \"%s\")\n", r->name, posted, m, t, res,
                       last_warning());
                return 0;
            }
            if (req == NULL) {
                nulls++;
                break;
            }
            reqs[posted++] = req;
            progressed = 1;
        }
        if (completed < posted) {
            int done = 0, sent = -1;
            int m = sc->message[completed], t = sc->tag[completed];
            ncclResult_t res = net->test(reqs[completed], &done, &sent);
            if (res != ncclSuccess) {
                printf("  (%s: test of send %d (message %d, tag %d): result %d: \"%s\")\n", r->name, completed, m, t,
                       res, last_warning());
                return 0;
            }
            if (done) {
                if (sent != (int)size_of(r->sizes, m, t)) {
                    printf("  (%s: send %d (message %d, tag %d) of %zu bytes: test reported %d)\n", r->name,
                           completed, m, t, size_of(r->sizes, m, t), sent);
                    return 0;
                }
                completed++;
                progressed = 1;
            }
        }
        if (progressed) {
            wait.idle = 0;
        } else if (!idle_poll(&wait)) {
            printf("  (%s: send %d (message %d, tag %d) not complete after %.0f s; %d of %d posted, %d isend(s)"
                   " returned NULL)\n", r->name, completed, sc->message[completed], sc->tag[completed], RUN_SECONDS,
                   posted, sc->nsends, nulls);
            return 0;
        }
    }
    if (nulls > 0) {
        printf("  (%s: %d isend(s) returned NULL and were called again)\n", r->name, nulls);
    }
    return 1;
}

/* Exchanges this side's verdict with the peer's: whether both passed. */
static int both_passed(struct side *s, int ok) {
    char mine = ok ? 'y' : 'n', theirs = 'n';
    if (write(s->sock, &mine, 1) != 1 || read(s->sock, &theirs, 1) != 1) {
        check(0, "verdicts exchanged with the peer");
        return 0;
    }
    return ok && theirs == 'y';
}

/* One run on a communicator of its own; whether both sides passed it. */
static int one_run(struct run *r, const unsigned char *handle) {
    struct side *s = r->s;
    r->comm = connect_comm(s, handle);
    if (r->comm == NULL) {
        rendezvous(s, "receives posted");
        return both_passed(s, 0);
    }
    r->mr = NULL;
    ncclResult_t res = s->net->regMr(r->comm, r->region, REGION_BYTES, NCCL_PTR_HOST, &r->mr);
    int ok = res == ncclSuccess && r->mr != NULL;
    if (!ok) {
        printf("  (%s: regMr: result %d)\n", r->name, res);
    }
    if (ok) {
        ok = s->sender ? send_all(r) : receive_all(r);
    }
    /* Each side meets the other once a run, also when it failed before it could. */
    if (!r->met) {
        rendezvous(s, "receives posted");
    }
    check(ok, "%s: every %s", r->name,
          s->sender ? "send completed, its size reported" : "buffer holds its send's bytes and size, nothing past it");
    int both = both_passed(s, ok);
    res = s->sender ? s->net->closeSend(r->comm) : s->net->closeRecv(r->comm);
    check(res == ncclSuccess, "%s: %s", r->name, s->sender ? "closeSend" : "closeRecv");
    if (r->mr != NULL) {
        check(s->net->deregMr(r->comm, r->mr) == ncclSuccess, "%s: deregMr", r->name);
    }
    return both;
}

/* The scenarios to run: selected[c] for SCENARIOS[c]. */
static int selected[NSCENARIOS];

static void *run_tags_side(void *arg) {
    struct side *s = arg;
    if (start_side(s) != 0) {
        return NULL;
    }
    unsigned char *region = malloc(REGION_BYTES);
    if (region == NULL) {
        check(0, "allocating %u bytes", (unsigned)REGION_BYTES);
        return NULL;
    }
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    exchange_handle(s, handle);
    int runs = 0, failed = 0, skipped = 0;
    double start = now_seconds();
    for (int c = 0; c < NSCENARIOS; c++) {
        const struct scenario *sc = &SCENARIOS[c];
        if (!selected[c]) {
            continue;
        }
        check(consistent(sc), "scenario %d (%s): its sends meet its buffers by tag and ordinal as written",
              sc->number, sc->what);
        for (int sizes = SMALL; sizes <= MIXED; sizes++) {
            for (int ahead = 0; ahead <= 1; ahead++) {
                if (failed >= MAX_FAILED_RUNS) {
                    skipped++;
                    continue;
                }
                struct run r = {.s = s, .sc = sc, .sizes = (enum sizes)sizes, .ahead = ahead, .region = region};
                snprintf(r.name, sizeof r.name, "scenario %d, %s, %s", sc->number, SIZE_NAMES[sizes],
                         ahead ? "receives posted ahead" : "each receive posted once the one before completed");
                if (!lay_out(sc, r.sizes, &r.l)) {
                    check(0, "%s: its buffers fit %u bytes", r.name, (unsigned)REGION_BYTES);
                    free(region);
                    return NULL;
                }
                runs++;
                double began = now_seconds();
                if (!one_run(&r, handle)) {
                    failed++;
                    printf("%s: tags: %s: FAILED (either side)\n", driver_side, r.name);
                } else {
                    printf("%s: tags: %s: passed in %.3f s\n", driver_side, r.name, now_seconds() - began);
                }
            }
        }
    }
    check(skipped == 0, "no run skipped (%d skipped after %d failed)", skipped, failed);
    printf("%s: tags: %d runs, %d failed, %d skipped, %.2f s\n", driver_side, runs, failed, skipped,
           now_seconds() - start);
    free(region);
    if (!s->sender) {
        check(s->net->closeListen(s->listen_comm) == ncclSuccess, "closeListen");
    }
    check(s->net->finalize(s->ctx) == ncclSuccess, "finalize");
    return NULL;
}

int run_tags(int argc, char **argv) {
    for (int c = 0; c < NSCENARIOS; c++) {
        selected[c] = argc == 0;
    }
    for (int i = 0; i < argc; i++) {
        char *end = NULL;
        long number = strtol(argv[i], &end, 10);
        if (end == argv[i] || *end != '\0' || number < 1 || number > NSCENARIOS) {
            fprintf(stderr, "tags: no scenario \"%s\" (1 - %d)\n", argv[i], NSCENARIOS);
            return 2;
        }
        selected[number - 1] = 1;
    }
    return run_two(run_tags_side, 0);
}

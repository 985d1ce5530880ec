/* conn_guard.c -- deadlines and per-address limits. See conn_guard.h. */
#include "conn_guard.h"
#include "headers.h"

#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CG_WAIT_HEADERS: a new connection's first request; CG_IDLE: a kept-alive
 * one after an answer (conn_guard.h) */
enum { CG_FREE, CG_WAIT_HEADERS, CG_IDLE, CG_BODY, CG_HANDLING };

typedef struct cg_slot {
    int state;
    int fd;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    double since;            /* the state's start (CLOCK_MONOTONIC s) */
    size_t bytes;            /* body bytes so far */
    bool linger;             /* refused unread: drain before the close (cg_linger) */
} cg_slot;

static struct {
    pthread_mutex_t mu;
    cg_config cfg;
    cg_slot *slots;
    unsigned nslots, open;
    pthread_t thread;
    bool running;
    int users;               /* servers started in this process */
    atomic_bool stop;
} G = {.mu = PTHREAD_MUTEX_INITIALIZER};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Same address (the port left out). */
static bool same_addr(const struct sockaddr *a, const struct sockaddr_storage *b) {
    if (a->sa_family != b->ss_family) return false;
    if (a->sa_family == AF_INET)
        return memcmp(&((const struct sockaddr_in *)a)->sin_addr,
                      &((const struct sockaddr_in *)b)->sin_addr, sizeof(struct in_addr)) == 0;
    if (a->sa_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
    return false;
}

static void expire(cg_slot *s, const char *why) {
    char body[300], common[1024], msg[1536];
    int bl = snprintf(body, sizeof body, "{\"error\":\"%s\"}", why);
    hdr_raw(common, sizeof common);   /* the fields every answer carries (headers.h) */
    int ml = snprintf(msg, sizeof msg,
                      "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n"
                      "Content-Type: application/json\r\nCache-Control: no-store\r\n%s"
                      "Content-Length: %d\r\n\r\n%s",
                      common, bl, body);
    if (ml > 0) {
        ssize_t w = send(s->fd, msg, (size_t)ml, MSG_DONTWAIT | MSG_NOSIGNAL);
        (void)w;   /* best effort: the client may be gone */
    }
    shutdown(s->fd, SHUT_RDWR);   /* libmicrohttpd's read ends; it closes the connection */
    s->state = CG_HANDLING;       /* once */
}

static void *watchdog(void *arg) {
    (void)arg;
    while (!atomic_load(&G.stop)) {
        struct timespec ts = {0, CG_TICK_MS * 1000000L};
        nanosleep(&ts, NULL);
        double t = now_s();
        pthread_mutex_lock(&G.mu);
        for (unsigned i = 0; i < G.nslots; i++) {
            cg_slot *s = &G.slots[i];
            double age = t - s->since;
            if (s->state == CG_IDLE && age > G.cfg.idle_s) {
                /* idle past idle_s: closed without a word (conn_guard.h) */
                shutdown(s->fd, SHUT_RDWR);
                s->state = CG_HANDLING;   /* once */
            } else if (s->state == CG_WAIT_HEADERS && age > G.cfg.header_s) {
                char why[160];
                snprintf(why, sizeof why, "request headers not complete within %u s; closed",
                         G.cfg.header_s);
                expire(s, why);
            } else if (s->state == CG_BODY && age > G.cfg.header_s &&
                       (double)s->bytes < age * (double)G.cfg.min_rate) {
                char why[200];
                snprintf(why, sizeof why, "request body arriving at %.0f bytes/s, under the "
                         "%zu bytes/s every body must keep; closed",
                         (double)s->bytes / age, G.cfg.min_rate);
                expire(s, why);
            }
        }
        pthread_mutex_unlock(&G.mu);
    }
    return NULL;
}

int cg_start(const cg_config *cfg) {
    pthread_mutex_lock(&G.mu);
    if (G.running) {
        /* one registry per process: a second server shares the first's */
        G.users++;
        pthread_mutex_unlock(&G.mu);
        return 0;
    }
    G.cfg = *cfg;
    if (!G.cfg.header_s) G.cfg.header_s = CG_DEFAULT_HEADER_S;
    if (G.cfg.idle_s < G.cfg.header_s) G.cfg.idle_s = G.cfg.header_s;
    if (!G.cfg.min_rate) G.cfg.min_rate = CG_DEFAULT_MIN_RATE;
    G.nslots = G.cfg.total;
    G.slots = calloc(G.nslots, sizeof *G.slots);
    G.open = 0;
    atomic_store(&G.stop, false);
    int rc = G.slots ? 0 : -1;
    if (!rc && pthread_create(&G.thread, NULL, watchdog, NULL) != 0) rc = -1;
    G.running = rc == 0;
    G.users = G.running;
    pthread_mutex_unlock(&G.mu);
    return rc;
}

void cg_stop(void) {
    pthread_mutex_lock(&G.mu);
    bool last = G.running && --G.users == 0;
    pthread_mutex_unlock(&G.mu);
    if (!last) return;
    atomic_store(&G.stop, true);
    pthread_join(G.thread, NULL);
    pthread_mutex_lock(&G.mu);
    free(G.slots);
    G.slots = NULL;
    G.nslots = G.open = 0;
    G.running = false;
    pthread_mutex_unlock(&G.mu);
}

enum MHD_Result cg_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen) {
    (void)cls;
    (void)addrlen;
    pthread_mutex_lock(&G.mu);
    unsigned mine = 0;
    for (unsigned i = 0; i < G.nslots; i++)
        if (G.slots[i].state != CG_FREE && same_addr(addr, &G.slots[i].addr)) mine++;
    bool ok = mine < G.cfg.per_ip &&
              (G.open + G.cfg.reserve < G.cfg.total || mine < CG_RESERVE_PER_IP) &&
              G.open < G.nslots;
    pthread_mutex_unlock(&G.mu);
    return ok ? MHD_YES : MHD_NO;
}

static cg_slot *slot_of(struct MHD_Connection *conn) {
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* Read and drop what the client still sends, until it closes, an error, or
 * CG_LINGER_MS in all (cg_completed: in the connection's own thread, after
 * the answer is sent and before libmicrohttpd closes the socket). */
static void drain(int fd) {
    char buf[16384];
    double end = now_s() + CG_LINGER_MS / 1000.0;
    for (;;) {
        double left = end - now_s();
        if (left <= 0) return;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return;
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (n <= 0) return;
    }
}

void cg_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
               enum MHD_ConnectionNotificationCode toe) {
    (void)cls;
    pthread_mutex_lock(&G.mu);
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        cg_slot *s = NULL;
        for (unsigned i = 0; i < G.nslots && !s; i++)
            if (G.slots[i].state == CG_FREE) s = &G.slots[i];
        const union MHD_ConnectionInfo *fi =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ai =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (s && fi) {
            memset(s, 0, sizeof *s);
            s->fd = fi->connect_fd;
            if (ai && ai->client_addr) {
                socklen_t l = ai->client_addr->sa_family == AF_INET6
                                  ? (socklen_t)sizeof(struct sockaddr_in6)
                                  : (socklen_t)sizeof(struct sockaddr_in);
                memcpy(&s->addr, ai->client_addr, l);
                s->addrlen = l;
            }
            s->state = CG_WAIT_HEADERS;
            s->since = now_s();
            G.open++;
        }
        *socket_context = s;
    } else if (*socket_context) {
        /* (no drain here: libmicrohttpd 0.9.75 notifies the close from its
         * one polling thread, which accepts every connection -- a drain here
         * held every new connection back for up to CG_LINGER_MS) */
        cg_slot *s = *socket_context;
        s->state = CG_FREE;
        s->linger = false;
        G.open--;
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&G.mu);
}

static void set_state(struct MHD_Connection *conn, int state) {
    cg_slot *s = slot_of(conn);
    if (!s) return;
    pthread_mutex_lock(&G.mu);
    if (s->state != CG_FREE) {
        s->state = state;
        s->since = now_s();
        s->bytes = 0;
    }
    pthread_mutex_unlock(&G.mu);
}

void cg_headers_done(struct MHD_Connection *conn, bool body_coming) {
    set_state(conn, body_coming ? CG_BODY : CG_HANDLING);
}

void cg_body_bytes(struct MHD_Connection *conn, size_t n) {
    cg_slot *s = slot_of(conn);
    if (!s) return;
    pthread_mutex_lock(&G.mu);
    s->bytes += n;
    pthread_mutex_unlock(&G.mu);
}

void cg_linger(struct MHD_Connection *conn) {
    cg_slot *s = slot_of(conn);
    if (!s) return;
    pthread_mutex_lock(&G.mu);
    if (s->state != CG_FREE) s->linger = true;
    pthread_mutex_unlock(&G.mu);
}

int cg_answer_now(struct MHD_Connection *conn, const char *msg, size_t len) {
    const union MHD_ConnectionInfo *fi =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!fi) return -1;
    int fd = fi->connect_fd;
    cg_slot *s = slot_of(conn);
    if (s) {
        /* the socket is ours from now: the watchdog writes no 408 on it */
        pthread_mutex_lock(&G.mu);
        bool mine = s->state == CG_BODY || s->state == CG_WAIT_HEADERS || s->state == CG_IDLE;
        if (mine) s->state = CG_HANDLING;
        pthread_mutex_unlock(&G.mu);
        if (!mine) return -1;
    }
    double end = now_s() + CG_LINGER_MS / 1000.0;
    while (len) {
        ssize_t w = send(fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0) {
            msg += w;
            len -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return -1;
        double left = end - now_s();
        if (left <= 0) return -1;
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        if (poll(&p, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR) return -1;
    }
    cg_linger(conn);
    return 0;
}

void cg_completed(struct MHD_Connection *conn) {
    cg_slot *s = slot_of(conn);
    if (!s) return;
    pthread_mutex_lock(&G.mu);
    bool linger = s->state != CG_FREE && s->linger;
    int fd = s->fd;
    s->linger = false;
    pthread_mutex_unlock(&G.mu);
    if (!linger) return;
    /* the answer is all sent: the client sees its end (libmicrohttpd's own
     * shutdown follows, a no-op then), and what it sends on is dropped; the
     * slot stays taken (the address's count) while it drains */
    shutdown(fd, SHUT_WR);
    drain(fd);
}

void cg_handling(struct MHD_Connection *conn) { set_state(conn, CG_HANDLING); }
void cg_idle(struct MHD_Connection *conn) { set_state(conn, CG_IDLE); }

unsigned cg_open(void) {
    pthread_mutex_lock(&G.mu);
    unsigned n = G.open;
    pthread_mutex_unlock(&G.mu);
    return n;
}

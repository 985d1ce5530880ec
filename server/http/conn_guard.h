/* conn_guard.h -- deadlines and per-address limits for every connection
 * (issue 31), done in front of libmicrohttpd 0.9.75, which has neither.
 *
 * What 0.9.75 offers and why it is not enough:
 *   MHD_OPTION_CONNECTION_TIMEOUT   an idle timeout: any byte restarts it, so
 *                                   a byte every 5 s holds a connection (and,
 *                                   one thread per connection, a thread)
 *                                   forever;
 *   MHD_OPTION_PER_IP_CONNECTION_LIMIT  a count per address, but the same for
 *                                   everyone: 4 addresses x 64 filled all 256;
 *   MHD_OPTION_CONNECTION_LIMIT     the hard cap, with nothing kept back.
 * What is done here instead:
 *   - a header deadline: from the connection's start the first request's
 *     headers must be complete within `header_s` seconds;
 *   - a kept-alive connection, from the end of its previous answer, is
 *     idle: after `idle_s` seconds with no request complete it is closed
 *     without a word (RFC 9112 §9.6), not answered 408. Nothing tells an
 *     idle connection from one whose next request has begun (libmicrohttpd
 *     reports a request once its headers are in), and a 408 written on an
 *     idle one is read by a client that sends its next request at that
 *     moment as the answer to it: Node's fetch, its event loop held for
 *     seconds past header_s between two requests, got "408 request headers
 *     not complete within 10 s" for a GET it had just sent;
 *   - a minimum body rate: a request body must arrive at `min_rate` bytes a
 *     second or more, averaged from the end of its headers, once `header_s`
 *     seconds have passed;
 *   a connection past either gets "408 Request Timeout" (written straight to
 *   its socket: libmicrohttpd is then reading, not writing) and is shut down,
 *   which ends libmicrohttpd's read at once. A watchdog thread checks every
 *   CG_TICK_MS. Requests being handled or answered have no deadline here
 *   (the memory an answer holds is answer_mem.h's).
 *   - per address at most `per_ip` connections (the accept policy callback
 *     counts them), so one address gets at most 1/8 of the connections;
 *   - the last `reserve` of the `total` connections only for addresses that
 *     hold fewer than CG_RESERVE_PER_IP connections: a flood from a few
 *     addresses cannot take them, /api/health from a monitor or a browser's
 *     first requests still get in. */
#ifndef SERVER_CONN_GUARD_H
#define SERVER_CONN_GUARD_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define CG_DEFAULT_HEADER_S 10
#define CG_DEFAULT_MIN_RATE 1024      /* bytes per second */
#define CG_TICK_MS 200
#define CG_RESERVE_PER_IP 4
#define CG_LINGER_MS 2000

typedef struct cg_config {
    unsigned header_s;       /* 0: CG_DEFAULT_HEADER_S */
    unsigned idle_s;         /* 0: header_s (never less than it) */
    size_t min_rate;         /* 0: CG_DEFAULT_MIN_RATE */
    unsigned total, per_ip, reserve;
} cg_config;

int cg_start(const cg_config *cfg);   /* 0, or -1 (no thread) */
void cg_stop(void);
/* MHD_OPTION_ACCEPT_POLICY_CALLBACK */
enum MHD_Result cg_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen);
/* MHD_OPTION_NOTIFY_CONNECTION */
void cg_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
               enum MHD_ConnectionNotificationCode toe);
/* A request's headers are complete; a body follows or not. */
void cg_headers_done(struct MHD_Connection *conn, bool body_coming);
void cg_body_bytes(struct MHD_Connection *conn, size_t n);
/* The request was refused before its body was read (its answer queued
 * at the first callback, the connection to close): once the answer is sent
 * (cg_completed), the write side is shut and what the client still sends is
 * read and dropped for up to CG_LINGER_MS, or until it closes, before the
 * socket is closed (RFC 9112 9.6: a close with unread bytes sends a reset,
 * which can destroy the answer in the client's buffers before it is read). */
void cg_linger(struct MHD_Connection *conn);
/* Answer now, while libmicrohttpd is still reading the request's body: 0.9.75
 * queues no answer then (MHD_queue_response refuses in the body-reading
 * state, connection.c), so `msg` (a whole response with "Connection: close")
 * is written straight to the socket, as the watchdog's 408 is; the caller
 * then returns MHD_NO from its handler and libmicrohttpd closes the
 * connection; what the client still sends is drained first (cg_linger,
 * cg_completed).
 * 0, or -1 when the whole answer could not be written within CG_LINGER_MS
 * or the watchdog has answered the connection already. */
int cg_answer_now(struct MHD_Connection *conn, const char *msg, size_t len);
/* A request is done (MHD_OPTION_NOTIFY_COMPLETED, in the connection's own
 * thread, after its answer is sent or the handler's MHD_NO): for a
 * connection marked by cg_linger, its write side is shut and what the client
 * still sends is drained, before libmicrohttpd closes the socket. */
void cg_completed(struct MHD_Connection *conn);
/* The body is in: handled and answered from now on (no deadline). */
void cg_handling(struct MHD_Connection *conn);
/* The request is done: the next one's header deadline starts now. */
void cg_idle(struct MHD_Connection *conn);
/* Connections open now (for tests and /api/health). */
unsigned cg_open(void);

#endif

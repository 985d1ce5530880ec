/* server/http/ -- the HTTP server: the transport (http.c over
 * libmicrohttpd, with conn_guard.c's deadlines and answer_mem.c's memory
 * cap), the work budget of a request (budget.c), the job queue (jobs.c),
 * the route table and context (api.c), and the handlers, one file per
 * group of routes (writes.c, experiments_edit.c, *_api.c, window.c,
 * stream_bins.c, record_pages.c, occupancy.c, queue_bins.c,
 * compare_cache.c). A handler reads arguments, calls app/ and writes the
 * answer; what a route does is specified in docs/api.md. It may include
 * app/, formats/ and the lower folders' headers, never cli/
 * (docs/modules.md). */

/* http.h -- the HTTP layer: libmicrohttpd with an internal thread pool on
 * epoll, a route table, request bodies up to a size limit, static files
 * from the web folder and the dashboard's page URLs.
 *
 * Routing: a pattern is a path whose `*` segments match any one segment,
 * e.g. "/api/runs/ * /blocks" (no spaces); the matched segments are
 * req->params[0..]. A path that no route claims gets, for GET/HEAD: the app
 * shell (web/index.html) for `/`, `/experiments/...`, `/runs/...` and
 * `/compare`; a file under the web folder; otherwise a JSON 404.
 *
 * The guard (issue 16: a server on a shared lab machine), checked from the
 * headers alone, before any body byte is read:
 *   - Host must be an IP literal, "localhost" or one of allow_hosts: a DNS
 *     rebinding page always comes with a host name of its own (421).
 *   - Transfer-Encoding other than "chunked", or together with
 *     Content-Length, is refused and the connection closed (501/400): the
 *     request smuggling libmicrohttpd 0.9.75 would otherwise let through.
 *   - Writes (any method but GET/HEAD): an Origin, when sent, must be this
 *     server's own (http://HOST of the request) and Sec-Fetch-Site must not
 *     be "cross-site" (403); with a token, `Authorization: Bearer TOKEN`
 *     (401); Content-Type application/json, or for /api/imports one of the
 *     upload types (415), so a page's `no-cors` text/plain POST never
 *     reaches a handler; a declared body over the cap is 413 at once, and
 *     past max_bodies bodies arriving at once 503 with Retry-After.
 *   - GET and HEAD stay open (shared links work without a token).
 * Every response carries Content-Security-Policy (only our own scripts),
 * X-Frame-Options: DENY, Referrer-Policy and nosniff; 5xx texts have
 * absolute file paths cut to their last component.
 *
 * Bodies: the first HTTP_BODY_RAM bytes in memory, the rest streamed to an
 * unlinked temporary file (tmp_dir) and mapped read-only once complete, so
 * an upload is never whole on the heap; the cap is enforced as bytes
 * arrive, chunked bodies included. The body is NUL-terminated (body[len]).
 *
 * Threads: one thread per connection (at most HTTP_MAX_CONNECTIONS), so a
 * slow handler delays only its own client; handlers run several at once,
 * and `app` is shared and must be thread-safe.
 *
 * Memory: a handler fills an http_response whose `body` (malloc'ed) becomes
 * MHD's to free. http_set_json steals the reference it is given. A handler
 * that hands the body to another thread takes it with http_take_body. */
#ifndef SERVER_HTTP_H
#define SERVER_HTTP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../formats/trace_json.h"

#define HTTP_MAX_PARAMS 4
#define HTTP_DEFAULT_MAX_BODY ((size_t)512 << 20)   /* 512 MiB: a large nsys export */
/* JSON bodies (scenarios, tasksets): the CLI's limit for a scenario file. */
#define HTTP_MAX_JSON_BODY ((size_t)64 << 20)
#define HTTP_BODY_RAM ((size_t)1 << 20)             /* past it, a temporary file */
#define HTTP_DEFAULT_MAX_BODIES 16                  /* bodies arriving at once */
#define HTTP_TIMEOUT_S 30                           /* idle connections closed */
/* one thread each; per address at most an eighth, and the last eighth kept
 * for addresses with few (conn_guard.h, issue 31) */
#define HTTP_MAX_CONNECTIONS 512
/* connections per client address by default, and the most --max-per-address
 * allows: the last HTTP_MAX_CONNECTIONS / 8 are kept for addresses holding
 * fewer than 4 (conn_guard.h) */
#define HTTP_PER_ADDRESS (HTTP_MAX_CONNECTIONS / 8)
#define HTTP_PER_ADDRESS_MAX (HTTP_MAX_CONNECTIONS - HTTP_MAX_CONNECTIONS / 8)

struct MHD_Connection;

/* A request body: in memory or a mapped temporary file. */
typedef struct http_body http_body;
const char *http_body_data(const http_body *b);
size_t http_body_len(const http_body *b);
/* True when the body is a mapped temporary file (past HTTP_BODY_RAM): an
 * import may drop the pages it has read (store_ctl.files_mapped, issue 9). */
bool http_body_mapped(const http_body *b);
void http_body_free(http_body *b);                  /* NULL is fine */

typedef struct http_request {
    const char *method;
    const char *path;                       /* decoded, without the query */
    const char *params[HTTP_MAX_PARAMS];    /* the `*` segments, NUL-terminated copies */
    size_t nparams;
    const char *body;                       /* NULL when there was none */
    size_t body_len;
    bool body_mapped;                       /* http_body_mapped of the body */
    struct MHD_Connection *conn;
    void *priv;                             /* http.c's; see http_take_body */
} http_request;

typedef struct http_response {
    int status;
    char *body;                  /* malloc'ed; owned by the response */
    size_t len;
    const char *content_type;    /* static string */
    const char *cache_control;   /* static string; NULL: "no-store" */
    char disposition[160];       /* Content-Disposition, "" for none */
    int retry_after;             /* seconds; 0: no Retry-After header */
    /* ETag of an answer that never changes ("" for none): a 200 whose
     * request's If-None-Match holds it is sent as 304 without a body */
    char etag[80];
    /* Location of a 201: the URL of what it created ("" for none; RFC
     * 9110 15.3.2: without it the created resource is the target URI) */
    char location[96];
    /* a streamed body (http_set_stream) instead of `body`; NULL: none */
    struct http_stream *stream;
    /* a body shared with others (http_set_shared) instead of `body`: sent
     * as is, never copied; release(release_cls) once it is sent or given up */
    const char *shared;
    void (*release)(void *cls);
    void *release_cls;
} http_response;

typedef void (*http_handler)(void *app, const http_request *req, http_response *res);

typedef struct http_route {
    const char *method;          /* "GET", "POST" */
    const char *pattern;
    http_handler fn;
    /* the query arguments it reads, NULL-terminated; NULL: none. Any other
     * is refused with 400 before the handler runs (http.c, query_check):
     * an argument a route does not read was dropped without a word, so
     * /blocks?limit=5 answered every block as if no limit had been asked */
    const char *const *args;
    /* Of args, those whose empty value is a value of its own (kernels=: no
     * kernel; NULL: none). Any other given with an empty value, or any
     * given without '=', is refused with 400 naming it (query_check): the
     * routes read such an argument as left out, or as a bad value, each
     * its own way (?max= was the default, ?limit= a 400) */
    const char *const *empty_ok;
    /* Of args, those without a default (runs): told to give a value, not
     * to leave the argument out. NULL: none. */
    const char *const *needed;
} http_route;

typedef struct http_config {
    const char *bind;            /* "127.0.0.1", "0.0.0.0", "::1" */
    uint16_t port;               /* 0: any free port (see http_port) */
    unsigned threads;            /* unused: one thread per connection */
    size_t max_body;             /* uploads (/api/imports); 0: HTTP_DEFAULT_MAX_BODY */
    size_t max_bodies;           /* bodies arriving at once; 0: HTTP_DEFAULT_MAX_BODIES */
    const char *tmp_dir;         /* spilled bodies; NULL: $TMPDIR, else /tmp */
    const char *token;           /* writes need "Authorization: Bearer token"; NULL: none */
    const char *read_token;      /* reads (GET/HEAD /api/) need it too; NULL: none */
    unsigned header_s;           /* header deadline, s; 0: CG_DEFAULT_HEADER_S */
    size_t min_body_rate;        /* bytes/s a body keeps; 0: CG_DEFAULT_MIN_RATE */
    /* connections one client address may hold; 0: HTTP_PER_ADDRESS (behind a
     * reverse proxy every request comes from the proxy's one address) */
    unsigned max_per_address;
    const char *const *allow_hosts;  /* Host names answered besides IPs and localhost */
    size_t nallow_hosts;
    const char *web_dir;         /* static files; NULL: none */
    const http_route *routes;
    size_t nroutes;
    void *app;                   /* handed to every handler */
    /* Called with app on the thread of the request that left none in
     * flight, at most once a second, just before the allocator gives its
     * free memory back (the idle trim): the application lets go of caches
     * it keeps between requests. NULL: none. */
    void (*on_idle)(void *app);
} http_config;

typedef struct http_server http_server;

/* Start listening; returns 0, or -1 with a message (address in use, ...). */
int http_start(const http_config *cfg, http_server **out, char *err, size_t errlen);
uint16_t http_port(const http_server *s);
/* From now on writes get 503 (the server is stopping); reads, job polls
 * among them, are still answered. */
void http_refuse_writes(http_server *s);
/* Stop accepting: the listening socket closes, requests arriving on open
 * connections get 503; requests in flight go on. */
void http_quiesce(http_server *s);
/* Wait until no request is in flight (every client answered) or ms pass;
 * returns the number still in flight. */
int http_wait_idle(http_server *s, int ms);
/* Stop, finish the requests in flight, free everything. */
void http_stop(http_server *s);

/* A query argument (decoded), or NULL. */
const char *http_query(const http_request *req, const char *key);
/* s as a whole decimal number: digits, maybe after a '-', and nothing
 * else; false when it is not one or does not fit 64 bits. (strtoll alone
 * skips leading blanks and takes a '+': "%205" and "+5" read as 5.) */
bool http_parse_int(const char *s, int64_t *out);
/* Take the request body over (NULL when there is none); req->body stays
 * valid only until the handler returns, the taken body until freed. */
http_body *http_take_body(const http_request *req);

/* Fill `res`. The JSON is written compactly; the reference is stolen. */
void http_set_json(http_response *res, int status, json_t *body);
/* {"error": the message}; a 500 whose message says the disk is full
 * (db_error_full) is sent as 507 Insufficient Storage (RFC 4918 §11.5). */
void http_set_error(http_response *res, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Hand a buffer's text over as the body (the buffer is left empty). */
void http_set_buf(http_response *res, int status, tj_buf *buf, const char *content_type);

/* A large body built as it is sent (libmicrohttpd's content-reader callback,
 * chunked transfer encoding) instead of whole in memory. Each time the
 * connection wants bytes, fill(ctx, w) appends the next records to the jw_buf
 * (jw.h) -- about HTTP_STREAM_CHUNK bytes more than jw_pending(w) is a good
 * amount, more is fine; it must add something unless it is done -- and
 * returns 1 while there is more to come, 0 after the last bytes, -1 on an
 * error (the connection is then cut: the status line is long gone).
 * free_ctx(ctx) runs once when the response is done or abandoned, on any
 * thread; it must release whatever ctx holds (a db handle back to its pool).
 * The response's other fields (content_type, disposition, cache_control)
 * apply as for a whole body. On OOM it answers 500 and calls free_ctx. */
#define HTTP_STREAM_CHUNK ((size_t)64 << 10)
typedef int (*http_stream_fill)(void *ctx, jw_buf *w);
void http_set_stream(http_response *res, int status, const char *content_type,
                     http_stream_fill fill, void (*free_ctx)(void *ctx), void *ctx);

/* What the streamed body's ctx holds in memory (records loaded for it), so
 * it counts against the memory for answers (answer_mem.h): call after
 * http_set_stream. Past the cap the answer is a 503. */
void http_stream_cost(http_response *res, size_t bytes);

/* A body someone else keeps (an answers' cache entry, issue 9): `len`
 * bytes at `data`, handed to libmicrohttpd as they are, without a copy per
 * request. release(cls) runs exactly once (on any thread) when the
 * response no longer needs them: after sending, or when the handler sets
 * another body. */
void http_set_shared(http_response *res, int status, const char *data, size_t len,
                     const char *content_type, void (*release)(void *cls), void *cls);

/* Whether the request's If-None-Match names `etag` (the client holds that
 * answer): a handler may skip building the body, set res->etag and a 200. */
bool http_etag_fresh(const http_request *req, const char *etag);

/* The MIME type for a file name, by extension. */
const char *http_mime_type(const char *path);

/* Cut absolute file paths in s (in place) to their last component, so no
 * answer tells a client where the server keeps its files. */
void http_scrub_paths(char *s);

#endif

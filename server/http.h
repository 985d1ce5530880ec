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
 * Threads: handlers run on MHD's worker threads, several at once; `app` is
 * shared and must be thread-safe.
 *
 * Memory: a handler fills an http_response whose `body` (malloc'ed) becomes
 * MHD's to free. http_set_json steals the reference it is given. */
#ifndef SERVER_HTTP_H
#define SERVER_HTTP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_json.h"

#define HTTP_MAX_PARAMS 4
#define HTTP_DEFAULT_MAX_BODY ((size_t)512 << 20)   /* 512 MiB: a large nsys export */

struct MHD_Connection;

typedef struct http_request {
    const char *method;
    const char *path;                       /* decoded, without the query */
    const char *params[HTTP_MAX_PARAMS];    /* the `*` segments, NUL-terminated copies */
    size_t nparams;
    const char *body;                       /* NULL when there was none */
    size_t body_len;
    struct MHD_Connection *conn;
} http_request;

typedef struct http_response {
    int status;
    char *body;                  /* malloc'ed; owned by the response */
    size_t len;
    const char *content_type;    /* static string */
    const char *cache_control;   /* static string; NULL: "no-store" */
    char disposition[160];       /* Content-Disposition, "" for none */
} http_response;

typedef void (*http_handler)(void *app, const http_request *req, http_response *res);

typedef struct http_route {
    const char *method;          /* "GET", "POST" */
    const char *pattern;
    http_handler fn;
} http_route;

typedef struct http_config {
    const char *bind;            /* "127.0.0.1", "0.0.0.0", "::1" */
    uint16_t port;               /* 0: any free port (see http_port) */
    unsigned threads;            /* worker threads; 0: one per CPU, at least 2 */
    size_t max_body;             /* 0: HTTP_DEFAULT_MAX_BODY */
    const char *web_dir;         /* static files; NULL: none */
    const http_route *routes;
    size_t nroutes;
    void *app;                   /* handed to every handler */
} http_config;

typedef struct http_server http_server;

/* Start listening; returns 0, or -1 with a message (address in use, ...). */
int http_start(const http_config *cfg, http_server **out, char *err, size_t errlen);
uint16_t http_port(const http_server *s);
/* Stop accepting, finish the requests in flight, free everything. */
void http_stop(http_server *s);

/* A query argument (decoded), or NULL. */
const char *http_query(const http_request *req, const char *key);

/* Fill `res`. The JSON is written compactly; the reference is stolen. */
void http_set_json(http_response *res, int status, json_t *body);
void http_set_error(http_response *res, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Hand a buffer's text over as the body (the buffer is left empty). */
void http_set_buf(http_response *res, int status, tj_buf *buf, const char *content_type);

/* The MIME type for a file name, by extension. */
const char *http_mime_type(const char *path);

#endif

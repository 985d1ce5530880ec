/* record_pages.h -- GET /api/runs/{run}/kernels and /copies a page at a
 * time: ?offset=&limit=&sort=&order=&name= (the run view's Kernels tab on a
 * kernel-level import of a million kernels), answered from db/rorder.h;
 * the contract is docs/api.md. */
#ifndef SERVER_RECORD_PAGES_H
#define SERVER_RECORD_PAGES_H

#include <stdbool.h>

#include "../../db/db.h"
#include "http.h"

/* Whether the request names any paging argument (offset, limit, sort,
 * order, name): then it is answered by rpage_records. */
bool rpage_wanted(const http_request *req);

/* Parses the paging arguments and answers the page of the run's kernels
 * (copies: its copies), or a 400 naming the argument, or a 404. */
void rpage_records(db *d, const http_request *req, const char *run, bool copies,
                   http_response *res);

#endif

/* seed_bg.h -- the shipped scenarios stored in the background (issue 30).
 *
 * The first `serve` on a new database simulates and stores every shipped
 * scenario (store_seed, ~11 s on a busy 2-core machine). It used to do so
 * before opening its port, silent; now the port opens at once and one
 * thread stores them, each scenario committed on its own, so the home page
 * sees them arrive; then the shipped sweeps (sweep_seed.h), each stored
 * once computed. GET /api/health says "seeding": true meanwhile (a
 * client that needs them all, a test, waits for false).
 *
 *   seedbg_expect   say "seeding" from now on: called before the port
 *                   opens, so that no request answered between the
 *                   opening and seedbg_start reads "seeding": false on a
 *                   database that has nothing stored yet (a test that
 *                   waited for false then found no scenarios)
 *   seedbg_start    start the thread (a copy of the paths is kept; the
 *                   sweeps folder may be NULL: no sweeps seeded)
 *   seedbg_pending  true while the thread runs
 *   seedbg_join     wait for it once it is done (serve's shutdown; a stop
 *                   while it still runs exits without waiting, its
 *                   scenario's transaction rolled back by SQLite) */
#ifndef SCHEDLAB_SEED_BG_H
#define SCHEDLAB_SEED_BG_H

#include <stdbool.h>
#include <stddef.h>

/* 0, or -1 when the thread could not start (err says why; nothing stored). */
int seedbg_start(const char *db_path, const char *scenarios_dir, const char *sweeps_dir,
                 char *err, size_t errlen);
void seedbg_expect(void);
bool seedbg_pending(void);
void seedbg_join(void);

#endif

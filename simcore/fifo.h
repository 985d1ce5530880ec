/* fifo.h -- the intrusive FIFO every simulator queue is made of.
 *
 * Items are small integers (an op or kernel index). A queue is a head and a
 * tail; the links live in an array the caller owns, one slot per item, so an
 * item can be in one queue per link array at a time and no queue allocates
 * while the simulation runs. Stream queues and the host's held lists share
 * the ops' `op_next` array (an op is in at most one of them), CE queues use
 * `op_ce_next` (a copy sits in its stream queue and its CE queue at once),
 * EE queues use `k_ee_next`. */
#ifndef SIMCORE_FIFO_H
#define SIMCORE_FIFO_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_fifo {
    int32_t head, tail;      /* -1 when empty */
} sim_fifo;

#define SIM_FIFO_EMPTY ((sim_fifo){ -1, -1 })

static inline bool fifo_empty(const sim_fifo *q) {
    return q->head < 0;
}

static inline void fifo_push(sim_fifo *q, int32_t *next, int32_t x) {
    next[x] = -1;
    if (q->tail >= 0) next[q->tail] = x;
    else q->head = x;
    q->tail = x;
}

/* Remove and return the head; the queue must not be empty. */
static inline int32_t fifo_pop(sim_fifo *q, int32_t *next) {
    int32_t x = q->head;
    q->head = next[x];
    if (q->head < 0) q->tail = -1;
    next[x] = -1;
    return x;
}

#endif

/* answer_mem.c -- the memory held for answers being sent. See answer_mem.h. */
#include "answer_mem.h"

#include <stdatomic.h>

static atomic_size_t cap = (size_t)AMEM_DEFAULT_MIB << 20;
static atomic_size_t held;

void amem_set_cap(size_t bytes) {
    atomic_store(&cap, bytes ? bytes : (size_t)AMEM_DEFAULT_MIB << 20);
}

size_t amem_cap(void) { return atomic_load(&cap); }

bool amem_take(size_t n) {
    size_t cur = atomic_load(&held);
    do {
        if (n > atomic_load(&cap) || cur > atomic_load(&cap) - n) return false;
    } while (!atomic_compare_exchange_weak(&held, &cur, cur + n));
    return true;
}

void amem_give(size_t n) { atomic_fetch_sub(&held, n); }

size_t amem_held(void) { return atomic_load(&held); }

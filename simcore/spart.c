/* spart.c -- spatial partitioning of the SMs between co-running kernels
 * (placement "spart"), the coarse-grained baseline of the ISCA'17 quota
 * sharing paper.
 *
 * ISCA'17 §2.3: "Sharer kernels can either partition the SMs spatially
 * within the GPU, as shown in Figure 2b [31, 37] ... QoS for spatially
 * partitioned sharing can be performed by adjusting the number of SMs for
 * each kernel to achieve performance goals with hill-climbing [3]"; §4.1
 * names it Spart, "Spatial Partition with hill climbing". Each stream owns
 * the SMs at ranks [sm_first, sm_first + sm_count) of the device's sm_order
 * (sim_stream; sm_count 0 = every SM), and its kernels' blocks go only
 * there; §4.3: "an SM cannot be divided between QoS and non-QoS kernels".
 * Within a partition a block goes to the SM with the most room for it,
 * ties to the lowest rank, as under most-room (most-room paper §4.1), so a
 * stream whose partition is the whole device places exactly as most-room.
 *
 * The partition itself (how many SMs each kernel gets) is chosen outside
 * the simulator, by the hill-climbing search of the QoS sweep
 * (server/app/qos_sweep.c), each step of which is a simulation with a fixed
 * partition: this file only enforces one. */
#include <stdio.h>

#include "state.h"

typedef struct spart_state {
    const sim_state *st;     /* kernel -> op -> stream -> partition */
} spart_state;

static int spart_init(void *self, const sim_state *st, char *err, size_t errlen) {
    spart_state *p = self;
    p->st = st;
    const sim_config *cfg = st->cfg;
    for (size_t i = 0; i < cfg->nstreams; i++) {
        const sim_stream *s = &cfg->streams[i];
        if (s->sm_count < 0 || s->sm_first < 0 || s->sm_count > st->dev->sms ||
            s->sm_first > st->dev->sms - s->sm_count) {
            snprintf(err, errlen, "streams[%zu].sms: ranks %d..%d of sm_order are not on the "
                     "device's %d SMs", i, (int)s->sm_first,
                     (int)s->sm_first + (int)s->sm_count - 1, (int)st->dev->sms);
            return -1;
        }
    }
    return 0;
}

static int32_t spart_pick(void *self, sim_sms *s, int32_t kernel, const sim_need *k) {
    const spart_state *p = self;
    const sim_config *cfg = p->st->cfg;
    const sim_stream *str = &cfg->streams[cfg->ops[p->st->ks[kernel].op].stream];
    int32_t lo = 0, hi = s->n;
    if (str->sm_count > 0) {
        lo = str->sm_first;
        hi = str->sm_first + str->sm_count;
    }
    /* most room within the partition, the lowest rank on ties (most-room
     * §4.1, §4.3); a partition is a few SMs, so a scan is as cheap as the
     * room index would be */
    int32_t best = -1, best_room = 0;
    for (int32_t r = lo; r < hi; r++) {
        int32_t sm = s->order[r];
        int32_t room = sms_room(s, sm, k);
        if (room > best_room) {
            best_room = room;
            best = sm;
        }
    }
    return best;
}

const placement_policy placement_spart = {
    .name = "spart",
    .doc = "each stream's kernels only on its own SMs (streams[].sms), most room within them: "
           "spatial partitioning, the Spart baseline of ISCA'17 §2.3, §4.1",
    .state_size = sizeof(spart_state),
    .init = spart_init,
    .pick = spart_pick,
    .partitioned = true,
};

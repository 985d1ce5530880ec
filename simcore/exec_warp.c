/* exec_warp.c -- the warp-level execution model (the QAWS paper's, §II and
 * §IV): a block's time comes out of simulating its warps on the SM's
 * sub-cores, cycle by cycle, under a warp policy (warp.h: gto, lrr, qaws).
 *
 * Rules, each with its source:
 *   - Each SM has schedulers_per_sm sub-cores, and a placed block's warps
 *     are dealt to them round-robin (QAWS §II: "Warps are distributed
 *     through the sub-cores in a round-robin manner [9], [10]"); the deal
 *     goes on from SM to SM where the last block's left off.
 *   - Each sub-core issues at most one instruction per cycle, from its
 *     ready warps, in the order of the warp policy (QAWS §II-A: "The warp
 *     scheduling policy determines which instruction from a ready warp is
 *     issued every cycle"; §IV-A: "iterates through the warps in Qissue
 *     until it finds a ready warp").
 *   - A warp runs its kernel's program in order; after an instruction of
 *     class X it cannot issue again for latency_X cycles (QAWS §II-A:
 *     "Anytime a warp stalls at an instruction, the warp scheduler chooses
 *     another warp"; the stalls of Fig. 3). A warp ends when its last
 *     instruction's latency has passed; a block ends when its last warp
 *     ends, and block placement, queues and streams go on as before.
 *   - With program.dep (the scoreboard; off when absent) a warp's next
 *     instruction waits only for the results it reads, the instructions
 *     program.dep names, not for the one before it ([GS] scoreboard.cc:
 *     reserveRegisters at issue, releaseRegisters at writeback,
 *     checkCollision before issue), and at most one issues a cycle
 *     (SM7_TITANV -gpgpu_max_insn_issue_per_warp 1); the warp ends when its
 *     last result is written.
 *   - mem instructions are served by one memory system shared by all SMs
 *     at mem_bandwidth requests per cycle, first come first served: a
 *     request waits for its slot, then takes latency_mem cycles, so
 *     memory-bound kernels that share the GPU lengthen each other's
 *     latencies (most-room paper §5.4: "the increase in contention for
 *     global memory throughput"). With device.sm_mem_bandwidth > 0 (the
 *     isca17-gpgpusim preset) each SM's port passes that many requests per
 *     cycle, first come first served too, and a request waits for the later
 *     of its two slots ([GS] the interconnect delivers one 32-byte flit a
 *     cycle into each SM), so a kernel held to a few SMs (Spart) cannot
 *     draw the whole memory system's bandwidth through them.
 *   - With device.ldst_queue > 0 (and l1_sectors) a memory instruction
 *     waits for the SM's L1 in one of its sub-core's ldst_queue slots, and
 *     a sub-core whose slots are all held issues nothing; the L1 takes the
 *     SM's instructions in issue order, and shared accesses pass it too, one
 *     a cycle ([GS] shader.cc: ID_OC_MEM, the scheduler's 2 operand
 *     collector units, OC_EX_MEM, one ldst_unit taking the oldest,
 *     shared_cycle; its counters on QAWS Fig. 4's 2dc and mm: docs/memory.md,
 *     "The LD/ST unit"), so the scheduler's order decides whose memory
 *     instructions an LD/ST-bound SM serves first.
 *   - A barrier op (__syncthreads()) holds its warp until every warp of
 *     its block has issued it; all then go on from the last one's latency
 *     and their own scoreboard ([GS] barrier_set_t, bar.sync: the CTA's
 *     warps waiting at the barrier are released together when the last
 *     arrives; bar_release). Not with a front end or preemption.
 *   - Under a quota warp policy (ISCA'17 quota sharing; quota.h, the QoS
 *     manager, and warp_quota_*.c) a warp issues only while its kernel's
 *     quota counter on the SM is positive; each warp instruction is
 *     charged its threads when it completes, and the manager renews the
 *     counters every policy.quota_epoch cycles (§3.3-§3.5).
 *   - With device.fetch_warps > 0 (the isca17-gpgpusim preset) the SM has
 *     GPGPU-Sim's front end ([GS] shader_core_ctx::fetch, decode,
 *     scheduler_unit::cycle): a warp issues only instructions decoded into
 *     its instruction buffer; each cycle the SM fetches for fetch_warps
 *     warps whose buffer is empty, in round-robin order of their warp
 *     slots from the one fetched last, and decodes up to ibuffer of their
 *     next instructions; those issue from two cycles after the fetch (issue
 *     runs before decode and decode before fetch in each cycle), and no
 *     sooner than the warp's last instruction's latency allows. The SM's
 *     instruction supply is then shared by its warps in turn whatever the
 *     warp policy, which GPGPU-Sim's schedulers see (ISCA'17 §4.1 runs on
 *     it); a warp's slot is the lowest free one when its block is placed.
 *   - Cycles in which no sub-core can issue are skipped: each sub-core is
 *     woken at the first cycle one of its warps is ready, and the model
 *     schedules one engine event per cycle in which some sub-core is due
 *     (or, with a front end, some SM has a warp to fetch for).
 *
 * Time: cycle c of the device clock begins at ceil(c * 1e9 / clock) ns; a
 * block placed at t starts issuing at the first cycle at or after t (and
 * never in a cycle already simulated).
 *
 * Blocks of kernels without a program (block_time) run for their
 * block_time, as under the fixed model, beside the warps.
 *
 * Records: every issue as a warp_issues entry {sm, subcore, cycle, warp,
 * kernel} up to policy.warp_issue_limit, and for the whole run the issue
 * slots each kernel used per epoch of policy.warp_epoch cycles
 * (warp_epochs); each kernel's instructions and ipc when it ends.
 *
 * Memory: everything is allocated in init (sized by the device: warps_per_sm
 * per sub-core, blocks_per_sm per SM) and freed in fini; nothing is
 * allocated per cycle or per instruction, only the trace's own records. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carveout.h"
#include "quota.h"
#include "tb_adjust.h"
#include "state.h"
#include "warp.h"

#define EW_MAX_BODY (1 << 24)           /* instructions in one body, flattened */
#define EW_MAX_LATENCY 1000000000       /* cycles */
#define EW_FRAC 16                      /* memory slots in 1/65536 cycle */
#define EW_MAX_CYCLES 1e13                /* a run's longest (2^43), far from int64 in 1/65536 */
#define EW_WHEEL 512                   /* cycles ahead the timing wheel holds */
#define EW_NEVER INT64_MAX             /* ready[] of a warp waiting for a fetch */
#define EW_BAR (INT64_MAX - 1)         /* ready[] of a warp waiting at its block's barrier */
#define EW_SLOTS 64                    /* warp slots of an SM the front end tracks */
#define EW_X_FP32 1u                   /* ext: runs on the sub-core's fp32 pipe */
#define EW_X_STORE 2u                  /* ext: a store */
#define EW_X_MANAGED 4u                /* ext: its data is in managed (unified) memory */
#define EW_X_LDST 8u                   /* ext: a shared access through the SM's LD/ST unit */
#define EW_X_SECTORS(x) ((int64_t)((x) >> 4))  /* ext: sectors of a mem access */
#define EW_SB 32                       /* completions a warp's scoreboard keeps (> SIM_DEP_FAR) */

/* A warp's scoreboard (program.dep; GPGPU-Sim scoreboard.cc): when each of
 * its last EW_SB instructions completes, by issue number modulo EW_SB. */
typedef struct ew_sb {
    int64_t done[EW_SB];
    int64_t last;            /* the latest completion so far: the warp ends then */
    int64_t n;               /* instructions issued */
} ew_sb;

/* A quota charge waiting for its instruction to complete (a scoreboarded
 * warp under a quota policy: "Quota charges in flight" below). */
typedef struct ew_charge {
    int64_t done;            /* the instruction completes */
    uint64_t seq;            /* issue order on the sub-core: equal completions go in it */
    int32_t k, lanes;        /* the QoS manager's kernel, the threads charged */
} ew_charge;

typedef struct ew_charges {
    ew_charge *h;            /* a binary heap, the earliest completion on top */
    int32_t n, cap;
    uint64_t seq;
} ew_charges;

typedef struct ew_kernel {
    uint32_t *code;          /* [len] latency << 1 | is_mem; NULL: block_time kernel */
    uint16_t *ext;           /* [len] sectors << 4 | ldst << 3 | managed << 2 | store << 1 | fp32 (EW_X_*), with the
                                memory system or fp32 pipes on (E->gate); NULL otherwise */
    struct ew_ws *ws;        /* [len] each mem instruction's working set, with an L1; else NULL */
    uint16_t *dep;           /* [len] the results each instruction reads (program.dep): up to
                                three distances back, 5 bits each; NULL: no scoreboard */
    uint8_t *bar;            /* [len] 1 at a barrier (op "barrier"); NULL: the program has none */
    int32_t len;
    bool uses_mem;           /* has mem instructions: its warps count in E->nact */
    int32_t budget;
    int64_t mem_span;        /* memory slots one mem instruction takes - 1, 1/65536 cycles */
    int64_t port_span;       /* the same in slots of the SM's memory port */
    int64_t per_block;       /* body repetitions of each block ... */
    int64_t extra;           /* ... plus one for blocks below this index */
    int64_t blocks, done;    /* blocks the kernel launches / that have ended */
    int64_t instructions;
    int64_t first_cycle;     /* first block's first cycle; -1 before */
    int64_t epoch_issues;    /* issues in the current epoch */
    int32_t warps;           /* warps per block */
    int32_t lanes_last;      /* threads of a block's last warp; 0 = a full warp */
} ew_kernel;

/* A mem instruction's working set (sim_access.footprint, scope): access
 * number a of a warp (its repetition times the op's count, plus its place
 * in the run, plus its rank among the warps sharing the region) touches
 * sectors a * n .. a * n + n - 1 of the region, modulo its size
 * (docs/memory.md). */
typedef struct ew_ws {
    uint64_t base;           /* first sector address of the region of scope index 0 */
    int64_t region;          /* sectors; 0 = a stream, never reused */
    int32_t off;             /* place of the instruction in its run of `count` */
    int32_t count;
    int32_t scope;           /* SIM_SCOPE_* */
} ew_ws;

typedef struct ew_block {
    int32_t kernel, sm;
    int32_t warps_left;
    int32_t at_bar;          /* its warps waiting at a barrier */
    int32_t next_free;
    int64_t end;             /* cycle: the latest end of its warps so far */
    int64_t rec;             /* its number among the run's blocks (state.h blocks_flushed) */
    int64_t wid0;            /* its first warp's dynamic id */
    int64_t index;           /* its index in its kernel */
    int64_t iters0;          /* body repetitions each of its warps runs */
} ew_block;

/* A preempted block's context: what its warps that had not ended will
 * resume from (ISCA'17 §2.3: "saving context of a running kernel one SM at
 * a time [31, 37]"). */
typedef struct ew_saved_warp {
    int32_t pc;
    int64_t iters;
    int64_t wid;             /* kept: the warp keeps its age */
} ew_saved_warp;

typedef struct ew_saved {
    struct ew_saved *next;
    int64_t saved;           /* the cycle its context is out (EV_BLOCK_PREEMPTED) */
    int64_t index, wid0, iters0;
    int32_t n;
    ew_saved_warp w[];
} ew_saved;

typedef struct ew_due {
    int64_t c;
    int32_t s;
} ew_due;

/* One way of an L1 set: its line, and its last use (the SM's count of
 * accesses, LRU's clock) above the sectors it holds (bits 0-3); tag and
 * use side by side, so that a set of four ways is one 64-byte line. */
typedef struct ew_l1way {
    uint64_t tag;            /* line address + 1; 0 = empty */
    uint64_t use;            /* last use << 4 | the sectors held */
} ew_l1way;

typedef struct ew_state {
    const warp_policy *wp;
    trace *t;
    int64_t clock;
    int32_t nsub;            /* sub-cores per SM */
    int32_t nsubs;           /* all of them */
    warp_sub *subs;          /* [nsubs]: SM s, sub-core j is subs[s * nsub + j] */
    int64_t *due;            /* [nsubs] cycle the sub-core is next due; INT64_MAX idle */
    int32_t words;           /* 64-bit words of a bitset of sub-cores */
    uint64_t *now;           /* [words] the sub-cores due in the cycle being run */
    uint64_t *wheel;         /* [EW_WHEEL * words]: slot c % EW_WHEEL holds the
                                sub-cores due in cycle c, for c in cur+1 .. cur+EW_WHEEL */
    uint64_t summary[EW_WHEEL / 64];   /* slots that are not empty */
    ew_due *heap;            /* sub-cores due later than the wheel reaches (stale
                                when due[] has moved since) */
    size_t hn, hcap;
    int64_t cur;             /* last cycle simulated; -1 before the first */
    int64_t pending;         /* cycle of the pending EV_EXEC; INT64_MAX none */
    int64_t armed;           /* cycle whose EV_EXEC fired in this instant; -1 none */
    sim_event_id pending_id;
    int32_t *rr;             /* [sms] sub-core the next warp is dealt to */
    ew_kernel *ks;
    size_t nk;
    ew_block *blocks;        /* [nblocks = sms * blocks_per_sm]; warps_left 0: free */
    int32_t nblocks;
    int32_t free_block;
    int64_t mem_next;        /* first free memory slot, 1/65536 cycles */
    int64_t mem_interval;    /* 65536 / mem_bandwidth */
    int64_t *port_next;      /* [sms] first free slot of each SM's memory port; NULL: no limit */
    int64_t port_interval;   /* 65536 / sm_mem_bandwidth */
    int64_t next_wid;
    int64_t limit;           /* warp_issues to record at most */
    int64_t epoch_len, epoch;
    int32_t *touched;        /* kernels with issues in the current epoch */
    int32_t ntouched;
    void *arena;             /* the sub-cores' arrays, one allocation */
    char *pol;               /* [nsubs * pol_size] the warp policy's state of each sub-core */
    size_t pol_size;         /* its state_size (at least 1) */
    size_t pol_n;            /* sub-cores whose state the policy's init has set up */
    int32_t (*pick)(void *self, const warp_sub *s, int64_t c);       /* the policy's hooks */
    void (*on_issue)(void *self, const warp_sub *s, int32_t p);
    bool quota;              /* a quota warp policy (ISCA'17): q runs */
    quota_state q;
    quota_scheme sch;        /* q's scheme: the policy's, with policy.quota_history's
                                setting of §3.4.2's adjustment when given (§4.8's ablation) */
    int32_t *owe;            /* [nsubs * warps_per_sm] the sub-cores' quota_owe */
    uint64_t *owed;          /* [nsubs * owed_words] by position, a bit per warp whose
                                quota_owe is not 0: the charge loop visits only these */
    int32_t owed_words;      /* (warps_per_sm + 63) / 64 */
    int32_t *wqk;            /* [nsubs * warps_per_sm] the sub-cores' quota_k */
    int32_t *qk;             /* [nk] the QoS manager's kernel of each kernel (quota.h) */
    int32_t *qfirst;         /* [q.nk] the first kernel of each manager kernel */
    /* placement spart-climb (spart.c): its epochs, the cycle of the last
     * boundary, each kernel's instructions so far [nk] */
    int64_t climb_len, climb_next, climb_at;
    int64_t *climb_issued;
    /* preemption (policy.sm_preempt): each SM's rank in sm_order, the
     * save / restore time in cycles, and each kernel's saved blocks, oldest
     * first, which ee.c resumes through warp_block_resume */
    int32_t *sm_rank;
    int64_t *port_free;      /* [sms] the cycle each SM's port is done saving */
    int64_t preempt_cycles;
    /* §3.6's TB adjustment (policy.tb_adjust, tb_adjust.h): idle warps
     * summed over the epoch's samples [sms * nk], how many samples, the
     * next sample's cycle and the step; scratch for the decision */
    int64_t *tba_iw;
    int64_t *tba_held;       /* [nsubs * warps_per_sm] by position, the cycle the memory
                                queue takes each warp's last request (idle until then) */
    int32_t tba_cap;         /* warps_per_sm */
    int64_t tba_samples, tba_next, tba_step;
    double *tba_mean;
    struct tba_kernel *tba_k;
    struct tba_move *tba_moves;
    bool *tba_swap;
    struct ew_saved **saved_head, **saved_tail;
    uint8_t *qpoll;          /* [nsubs] asleep where the rule looks every cycle (run_subcore_quota) */
    int32_t *sm_live;        /* [sms] quota runs: the SM's sub-cores holding warps */
    int32_t nqpoll;          /* how many: while any, every cycle runs, as under the rule */
    /* the front end (device.fetch_warps > 0) */
    int32_t fe_warps;        /* warps fetched per SM and cycle; 0 = not modelled */
    int32_t fe_ibuf;         /* instructions decoded per fetch */
    uint64_t *fe_used;       /* [sms] warp slots held */
    uint64_t *fe_want;       /* [sms] slots whose warp's buffer is empty */
    int32_t *fe_last;        /* [sms] slot fetched last */
    int32_t *fe_sub;         /* [sms * EW_SLOTS] sub-core of each held slot */
    int32_t *fe_pos;         /* [sms * EW_SLOTS] its warp's position in that sub-core */
    int64_t *fe_at;          /* [sms * EW_SLOTS] a warp waiting for a fetch: its fe_done, and */
    int32_t *fe_nb;          /* [sms * EW_SLOTS] the instructions the fetch decodes, both
                                known when its buffer empties (fe_want; the warp cannot issue
                                until the fetch), so that fe_fetch reads nothing of it */
    int32_t sm_words;        /* 64-bit words of a bitset of SMs */
    uint64_t *fe_sms;        /* [sm_words] SMs with a warp to fetch for */
    int32_t fe_nsms;         /* how many */
    /* the memory system and fp32 pipes (device.dram_sectors, fp32_rate;
     * docs/memory.md): instructions may be held back at issue (gated) */
    bool gate;               /* either is on: issue goes through gated() */
    bool mx;                 /* the sectored memory system is on */
    int64_t *mq_next;        /* [nsubs] first free sector slot of each sub-core's share of
                                its SM's memory pipeline, 1/65536 cycles */
    int32_t *mq_warps;       /* [nsubs] resident warps of kernels with mem instructions */
    int32_t *mq_subs;        /* [sms] sub-cores with such warps: they share the SM's pipeline */
    int32_t nact;            /* SMs with such warps: they share the DRAM equally */
    int64_t *mq_smnext;      /* device.dram_share 1, [sms]: the last of its sub-cores'
                                mq_next, so the SMs with sectors waiting are known */
    int64_t mq_cap;          /* sectors a sub-core holds outstanding (its SM's / sub-cores) */
    bool mq_arrival;         /* device.mem_admission 1: waiting warps enter in arrival order */
    int64_t *mq_head;        /* with it, [nsubs]: the ticket whose turn it is */
    int64_t *mq_tail;        /* [nsubs] the last ticket given; head > tail: nobody waits */
    int64_t port_iv;         /* 65536 / sm_port_sectors */
    int64_t dram_iv;         /* 65536 / dram_sectors */
    int64_t *fp_next;        /* [nsubs] first free slot of each sub-core's fp32 pipe, 1/65536 */
    int64_t fp_iv;           /* 65536 / fp32_rate; 0 = not modelled */
    int64_t sectors;         /* sectors served, all kernels (for the record) */
    int32_t warp_size;
    /* the L1 (device.l1_smem_kb): per SM, nsets x assoc lines */
    int32_t l1_sets, l1_assoc;
    int32_t l1_lat;
    int64_t l1_iv;           /* 65536 / l1_sectors; 0 = the L1 has no rate limit */
    int64_t *l1_next;        /* [sms] with it: the SM's L1 is free from here, 1/65536 cycles */
    ew_l1way *l1_way;        /* [sms * sets * assoc] */
    uint64_t *l1_clock;      /* [sms] */
    int64_t l1_hits, l1_misses;
    /* the L2 (device.l2_kb): the whole GPU's, nsets x assoc lines; a line's
     * mask holds its sectors (bits 0-3) and which of them are dirty (4-7) */
    int32_t l2_sets, l2_assoc;
    int64_t *mq_port, *mq_dram;  /* [nsubs] with an L2: each sub-core's port and DRAM streams
                                    (mq_next is the later of the two) */
    int32_t l2_lat;
    uint64_t *l2_tag;        /* [sets * assoc] line address + 1; 0 = empty */
    uint64_t *l2_lru;        /* ... last use (a count of accesses) */
    uint8_t *l2_mask;
    uint64_t l2_clock;
    int64_t l2_hits, l2_misses, l2_writebacks;
    uint64_t l2_addr[1024];  /* the sectors of the access being issued that left the SM (a
                                warp access has at most 1024: sim.h sim_access) */
    /* unified memory (device.uvm_page_kb) */
    int64_t uvm_page;        /* bytes; 0 = not modelled */
    int64_t uvm_copy;        /* cycles one page's migration takes on the copy link */
    int64_t uvm_lat;         /* cycles from a fault to its page, at least */
    int64_t uvm_next;        /* the copy link is free from this cycle */
    int32_t uvm_slots;       /* faults an SM has outstanding */
    int64_t *uvm_sm_free;    /* [sms * uvm_slots] cycle each slot is free */
    uint64_t *uvm_key;       /* the page map (uvm_find) */
    int64_t *uvm_val;
    size_t uvm_n, uvm_cap;
    int64_t uvm_faults;
    ew_sb *sb;               /* [nsubs * warps_per_sm] each warp's scoreboard, by position
                                (moved with ready[]); NULL when no kernel has program.dep */
    int32_t sb_cap;          /* warps_per_sm */
    ew_charges *chq;         /* [nsubs] the charges in flight of scoreboarded warps under a
                                quota policy; NULL when no kernel has program.dep or no quota */
    /* the LD/ST queue (device.ldst_queue, with l1_sectors): each sub-core's
     * memory instructions issued and not yet taken by its SM's L1 */
    int32_t lq_n;            /* slots per sub-core; 0 = not modelled */
    int64_t *lq_free;        /* [nsubs * lq_n] the cycle each slot is free again */
    ew_due *mq_end;          /* memory warps that have issued their last instruction: each
                                stops counting on its sub-core (mq_warps) at cycle c */
    size_t mq_nend, mq_capend;
} ew_state;

/* ---- time --------------------------------------------------------------- */

static int64_t ns_of_cycle(const ew_state *E, int64_t c) {
    int64_t f = E->clock;
    return c / f * 1000000000 + ((c % f) * 1000000000 + f - 1) / f;
}

static int64_t cycle_of_ns(const ew_state *E, int64_t t) {
    int64_t f = E->clock;
    return t / 1000000000 * f + ((t % 1000000000) * f + 999999999) / 1000000000;
}

/* ---- configuration -------------------------------------------------------- */

static int32_t class_latency(const sim_device *d, const sim_program *p, int32_t c) {
    if (p->latency[c] > 0) return p->latency[c];
    switch (c) {
    case SIM_ICLASS_ALU: return d->latency_alu;
    case SIM_ICLASS_SFU: return d->latency_sfu;
    case SIM_ICLASS_SHARED: return d->latency_shared;
    case SIM_ICLASS_MEM: return d->latency_mem;
    /* a barrier's own latency: taken as the ALU's (a choice: it takes an
     * issue slot like an ALU op; the op's latency.barrier overrides it) */
    case SIM_ICLASS_BARRIER: return d->latency_alu;
    }
    return 0;
}

static int warp_check(const sim_config *cfg, const sim_device *d, bool driver_pauses,
                      char *err, size_t errlen) {
    if (driver_pauses) {
        snprintf(err, errlen, "policy.contexts: the warp-level model runs with the shared "
                 "driver only (time-sliced contexts would pause its warps)");
        return -1;
    }
    if (d->fetch_warps > 0 && d->warps_per_sm > EW_SLOTS) {
        snprintf(err, errlen, "device.fetch_warps: the front end tracks at most %d warp slots "
                 "per SM, and warps_per_sm is %d", EW_SLOTS, (int)d->warps_per_sm);
        return -1;
    }
    if (d->clock_hz <= 0 || d->clock_hz > 9000000000LL) {
        snprintf(err, errlen, "device.clock: %s; the warp-level model counts cycles of a clock "
                 "of at most 9 GHz", d->clock_hz <= 0 ? "unknown" : "more than 9 GHz");
        return -1;
    }
    /* every time the model computes stays far from int64 (cycles << 16 for
     * memory slots): bound the run by its instructions times the longest
     * each can take. A run that stops (cfg->stop: the QoS sweep's window)
     * computes no time past the stop plus what the instructions issued
     * before it can add, at most one a sub-core and cycle, each its longest:
     * the bound is the smaller of the two (ISCA'17 §4.1's 2M-cycle window
     * re-executes each program 64 times, and tpacf's 64 runs alone would
     * bound the whole run at 1e13 cycles) */
    double bound = 0, stop_cycles = -1, worst = 0;
    if (cfg->stop > 0)
        stop_cycles = (double)cfg->stop / 1e9 * (double)d->clock_hz + 1;
    for (size_t i = 0; i < cfg->nops; i++) {
        const sim_op *o = &cfg->ops[i];
        const sim_program *p = o->program;
        if (o->kind != SIM_OP_KERNEL || !p) continue;
        if (p->nbody == 0 || !p->body) {
            snprintf(err, errlen, "ops[%zu].program.body: empty; a program needs at least one "
                     "instruction", i);
            return -1;
        }
        int64_t len = 0;
        bool mem = false;
        for (size_t j = 0; j < p->nbody; j++) {
            int32_t c = p->body[j].iclass;
            if (c < 0 || c >= SIM_NICLASS) {
                snprintf(err, errlen, "ops[%zu].program.body[%zu].op: %d is not an instruction "
                         "class", i, j, (int)c);
                return -1;
            }
            if (p->body[j].count < 1 || p->body[j].count > EW_MAX_BODY) {
                snprintf(err, errlen, "ops[%zu].program.body[%zu].count: %d is outside 1..%d", i,
                         j, (int)p->body[j].count, EW_MAX_BODY);
                return -1;
            }
            len += p->body[j].count;
            mem |= c == SIM_ICLASS_MEM;
            int32_t lat = class_latency(d, p, c);
            if (lat < 1 || lat > EW_MAX_LATENCY) {
                snprintf(err, errlen, "ops[%zu].latency.%s: %s; give the latency of %s "
                         "instructions here or as the device's latency_%s", i, sim_iclass_name(c),
                         lat < 1 ? "unknown (the device gives none)" : "more than 1e9 cycles",
                         sim_iclass_name(c),
                         sim_iclass_name(c == SIM_ICLASS_BARRIER ? SIM_ICLASS_ALU : c));
                return -1;
            }
            /* a warp waiting at a barrier is not one the front end fetches
             * for, nor one a preempted block's context keeps */
            if (c == SIM_ICLASS_BARRIER && (d->fetch_warps > 0 || cfg->policy.has_sm_preempt)) {
                snprintf(err, errlen, "ops[%zu].program.body[%zu]: a barrier is not modelled "
                         "with %s", i, j, d->fetch_warps > 0 ? "the front end (device.fetch_warps)"
                         : "preemption (policy.sm_preempt)");
                return -1;
            }
        }
        for (size_t j = 0; j < p->nbody && d->dram_sectors > 0; j++) {
            if (p->access && (p->access[j].sectors < 0 || p->access[j].sectors > 1024)) {
                snprintf(err, errlen, "ops[%zu].program.body[%zu].access: %d sectors is outside "
                         "1..1024", i, j, (int)p->access[j].sectors);
                return -1;
            }
            int32_t lat = class_latency(d, p, SIM_ICLASS_ALU);
            if (p->access && p->access[j].store && (lat < 1 || lat > EW_MAX_LATENCY)) {
                snprintf(err, errlen, "ops[%zu].latency.alu: %s; a store's warp goes on after "
                         "the ALU's latency (device latency_alu)", i,
                         lat < 1 ? "unknown (the device gives none)" : "more than 1e9 cycles");
                return -1;
            }
        }
        if (len > EW_MAX_BODY) {
            snprintf(err, errlen, "ops[%zu].program.body: %lld instructions; at most %d in one "
                     "body (use repeat)", i, (long long)len, EW_MAX_BODY);
            return -1;
        }
        if (p->repeat < 1 || p->repeat > 1000000000000LL / o->blocks) {
            snprintf(err, errlen, "ops[%zu].program.repeat: %lld is outside 1..%lld for %lld "
                     "blocks", i, (long long)p->repeat, 1000000000000LL / o->blocks,
                     (long long)o->blocks);
            return -1;
        }
        if (p->mem_requests < 0 || p->mem_requests > 1024) {
            snprintf(err, errlen, "ops[%zu].program.mem_requests: %d is outside 1..1024", i,
                     (int)p->mem_requests);
            return -1;
        }
        bool mx = d->dram_sectors > 0;
        if (mx && p->mem_requests > 256) {
            /* a mem op without an access pattern is mem_requests requests
             * of 4 sectors, and an access is at most 1024 sectors */
            snprintf(err, errlen, "ops[%zu].program.mem_requests: %d requests of 4 sectors are "
                     "more than a mem op's 1024 with the memory system on (dram_sectors)", i,
                     (int)p->mem_requests);
            return -1;
        }
        if (mem && !mx && !(d->mem_bandwidth > 0)) {
            snprintf(err, errlen, "device.mem_bandwidth: unknown; ops[%zu] has mem instructions "
                     "and the model needs the memory bandwidth (requests per cycle)", i);
            return -1;
        }
        int32_t maxlat = 1;
        for (int32_t c = 0; c < SIM_NICLASS; c++)
            if (class_latency(d, p, c) > maxlat) maxlat = class_latency(d, p, c);
        double per = (double)maxlat;
        if (mx) {
            /* the slowest a sector is served: the SM's equal share of DRAM */
            double iv = 1 / d->sm_port_sectors;
            if ((double)d->sms / d->dram_sectors > iv) iv = (double)d->sms / d->dram_sectors;
            if (mem) per += 1024 * iv;
            /* and a managed access may wait for its page's fault and copy */
            if (mem && d->uvm_page_kb > 0)
                per += (double)d->uvm_fault_latency +
                       (double)d->uvm_page_kb * 1024 / d->copy_bandwidth * (double)d->clock_hz;
            if (d->fp32_rate > 0 && 1 / d->fp32_rate > per) per = 1 / d->fp32_rate;
        } else {
            double rate = d->mem_bandwidth;
            if (d->sm_mem_bandwidth > 0 && d->sm_mem_bandwidth < rate) rate = d->sm_mem_bandwidth;
            if (mem) per += (double)(p->mem_requests > 1 ? p->mem_requests : 1) / rate;
            if (d->fp32_rate > 0 && 1 / d->fp32_rate > per) per = 1 / d->fp32_rate;
        }
        double warps = (double)((o->threads + d->warp_size - 1) / d->warp_size);
        bound += (double)o->blocks * warps * (double)len * (double)p->repeat * per;
        if (per > worst) worst = per;
        double until_stop = stop_cycles * (1 + (double)d->sms * d->schedulers_per_sm * worst);
        if (bound > EW_MAX_CYCLES && !(stop_cycles > 0 && until_stop <= EW_MAX_CYCLES)) {
            snprintf(err, errlen, "ops[%zu].program: the run could take %.3g cycles, more than "
                     "the model's %.3g (fewer blocks, repetitions or cycles of latency)", i,
                     bound, EW_MAX_CYCLES);
            return -1;
        }
        if (o->budget < 0) {
            snprintf(err, errlen, "ops[%zu].budget: %d is negative", i, (int)o->budget);
            return -1;
        }
        for (size_t j = 0; p->dep && j < p->nbody; j++) {
            const sim_dep *dp = &p->dep[j];
            bool bad = dp->n < 0 || dp->n > SIM_DEP_MAX;
            for (int32_t q = 0; !bad && q < dp->n; q++)
                bad = dp->on[q] < 1 || dp->on[q] > SIM_DEP_FAR;
            if (bad) {
                snprintf(err, errlen, "ops[%zu].program.body[%zu].dep: at most %d results, each "
                         "1..%d instructions back", i, j, SIM_DEP_MAX, SIM_DEP_FAR);
                return -1;
            }
        }
    }
    return 0;
}

/* ---- the due-cycle structure: a timing wheel of sub-core bitsets for the
 * next EW_WHEEL cycles (insert and remove O(1), exact), a heap beyond ---- */

static bool due_less(ew_due a, ew_due b) {
    return a.c < b.c || (a.c == b.c && a.s < b.s);
}

static int heap_push(ew_state *E, int64_t c, int32_t s) {
    if (E->hn == E->hcap) {
        size_t cap = E->hcap ? 2 * E->hcap : 256;
        ew_due *h = realloc(E->heap, cap * sizeof *h);
        if (!h) return -1;
        E->heap = h;
        E->hcap = cap;
    }
    size_t i = E->hn++;
    ew_due x = { c, s };
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!due_less(x, E->heap[p])) break;
        E->heap[i] = E->heap[p];
        i = p;
    }
    E->heap[i] = x;
    return 0;
}

static void heap_pop(ew_state *E) {
    ew_due x = E->heap[--E->hn];
    size_t i = 0, n = E->hn;
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n) break;
        size_t m = l + 1 < n && due_less(E->heap[l + 1], E->heap[l]) ? l + 1 : l;
        if (!due_less(E->heap[m], x)) break;
        E->heap[i] = E->heap[m];
        i = m;
    }
    if (n) E->heap[i] = x;
}

/* Drop entries whose sub-core has moved; the earliest valid due cycle. */
static int64_t heap_top(ew_state *E) {
    while (E->hn && E->due[E->heap[0].s] != E->heap[0].c) heap_pop(E);
    return E->hn ? E->heap[0].c : INT64_MAX;
}

static bool in_wheel(const ew_state *E, int64_t c) {
    return c > E->cur && c <= E->cur + EW_WHEEL;
}

/* Sub-core s leaves the wheel's slot of its due cycle, if it is in one
 * (a heap entry is dropped when it comes up: heap_top). */
static inline void unslot(ew_state *E, int32_t s) {
    int64_t old = E->due[s];
    if (old > E->cur && old <= E->cur + EW_WHEEL) {
        size_t slot = (size_t)(old & (EW_WHEEL - 1));
        uint64_t *w = E->wheel + slot * (size_t)E->words;
        w[s >> 6] &= ~(1ULL << (s & 63));
        bool any = false;
        for (int32_t i = 0; i < E->words && !any; i++) any = w[i] != 0;
        if (!any) E->summary[slot >> 6] &= ~(1ULL << (slot & 63));
    }
}

/* Sub-core s is due at cycle c (> cur) instead of when it was. */
static inline int set_due(ew_state *E, int32_t s, int64_t c) {
    uint64_t bit = 1ULL << (s & 63);
    unslot(E, s);
    E->due[s] = c;
    if (!in_wheel(E, c)) return heap_push(E, c, s);
    size_t slot = (size_t)(c & (EW_WHEEL - 1));
    E->wheel[slot * (size_t)E->words + (size_t)(s >> 6)] |= bit;
    E->summary[slot >> 6] |= 1ULL << (slot & 63);
    return 0;
}

/* The first cycle after cur in which a sub-core is due, or the front end
 * has a warp to fetch for; INT64_MAX: none. */
static int64_t next_due(ew_state *E) {
    if (E->fe_nsms || E->nqpoll) return E->cur + 1;
    int64_t best = heap_top(E);
    /* the wheel's slots cur+1 .. cur+EW_WHEEL, in cycle order */
    size_t start = (size_t)((E->cur + 1) & (EW_WHEEL - 1));
    for (size_t k = 0; k < EW_WHEEL / 64 + 1; k++) {
        size_t wi = ((start >> 6) + k) % (EW_WHEEL / 64);
        uint64_t m = E->summary[wi];
        if (k == 0) m &= ~0ULL << (start & 63);
        else if (k == EW_WHEEL / 64) m &= (start & 63) ? ~(~0ULL << (start & 63)) : 0;
        if (!m) continue;
        size_t slot = wi * 64 + (size_t)__builtin_ctzll(m);
        int64_t c = E->cur + 1 + (int64_t)((slot - start) & (EW_WHEEL - 1));
        return c < best ? c : best;
    }
    return best;
}

/* Make sure an EV_EXEC is pending for cycle c or earlier. */
static void wake_at(ew_state *E, sim_state *st, int64_t c) {
    if (E->pending <= c) return;
    if (E->pending_id) sim_engine_cancel(&st->eng, E->pending_id);
    E->pending_id = sim_engine_schedule(&st->eng, ns_of_cycle(E, c), EV_EXEC, 0, c);
    E->pending = c;
    if (!E->pending_id) st->failed = true;
}

/* ---- records ---------------------------------------------------------------- */

static void epoch_flush(ew_state *E) {
    for (int32_t i = 0; i < E->ntouched; i++) {
        ew_kernel *K = &E->ks[E->touched[i]];
        trace_warp_epoch *w = trace_add_warp_epoch(E->t);
        if (w) {
            w->kernel = E->touched[i];
            w->cycle = E->epoch * E->epoch_len;
            w->cycles = E->epoch_len;
            w->issues = K->epoch_issues;
        }
        K->epoch_issues = 0;
    }
    E->ntouched = 0;
}

/* ---- warps ---------------------------------------------------------------- */

/* Sub-core s's owed bits (E->owed), and their upkeep: warp p's set or
 * cleared; warp p gone, the bits above it one position down, as the
 * arrays' entries move (remove_warp). */
static inline uint64_t *owed_of(const ew_state *E, const warp_sub *w) {
    return E->owed + (size_t)(w - E->subs) * (size_t)E->owed_words;
}

static void owed_remove(uint64_t *b, int32_t words, int32_t p) {
    int32_t i = p >> 6;
    uint64_t below = (1ULL << (p & 63)) - 1;
    b[i] = (b[i] & below) | ((b[i] >> 1) & ~below);
    for (; i + 1 < words; i++) {
        b[i] |= (b[i + 1] & 1) << 63;
        b[i + 1] >>= 1;
    }
}

/* ---- quota charges in flight ----------------------------------------------
 * ISCA'17 §3.4.1: "When a warp instruction of k is completed, C_k is
 * decremented by the number of instructions that are actually executed".
 * Without a scoreboard a warp's next instruction waits for the one before
 * it, so a warp owes one charge at a time (quota_owe), due when it may
 * issue again. With one (program.dep: GPGPU-Sim's scoreboard.cc lets a warp
 * issue while its earlier instructions are in flight) a warp owes a charge
 * for each instruction in flight, each due at its own completion and in
 * any order (a load issued before an add completes after it): they wait in
 * their sub-core's heap, earliest first, equal completions in issue order. */
static bool charge_before(const ew_charge *a, const ew_charge *b) {
    return a->done < b->done || (a->done == b->done && a->seq < b->seq);
}

static int charge_push(ew_charges *q, int64_t done, int32_t k, int32_t lanes) {
    if (q->n == q->cap) {
        int32_t cap = q->cap ? 2 * q->cap : 64;
        ew_charge *h = realloc(q->h, (size_t)cap * sizeof *h);
        if (!h) return -1;
        q->h = h;
        q->cap = cap;
    }
    ew_charge x = { .done = done, .seq = q->seq++, .k = k, .lanes = lanes };
    int32_t i = q->n++;
    while (i > 0 && charge_before(&x, &q->h[(i - 1) / 2])) {
        q->h[i] = q->h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->h[i] = x;
    return 0;
}

/* Charges SM sm's counters for the instructions of q completed by cycle c,
 * earliest first; returns the next completion (INT64_MAX: none in flight). */
static int64_t charge_due(ew_state *E, ew_charges *q, int32_t sm, int64_t c) {
    while (q->n > 0 && q->h[0].done <= c) {
        ew_charge top = q->h[0], x = q->h[--q->n];
        int32_t i = 0;
        for (int32_t ch = 1; ch < q->n; ch = 2 * i + 1) {
            if (ch + 1 < q->n && charge_before(&q->h[ch + 1], &q->h[ch])) ch++;
            if (!charge_before(&q->h[ch], &x)) break;
            q->h[i] = q->h[ch];
            i = ch;
        }
        if (q->n > 0) q->h[i] = x;
        quota_charge(&E->q, sm, top.k, top.lanes, c);
    }
    return q->n > 0 ? q->h[0].done : INT64_MAX;
}

static void remove_warp(ew_state *E, warp_sub *w, int32_t p) {
    int32_t m = w->n - p - 1;
    memmove(w->ready + p, w->ready + p + 1, (size_t)m * sizeof *w->ready);
    memmove(w->info + p, w->info + p + 1, (size_t)m * sizeof *w->info);
    if (w->quota_owe) {
        memmove(w->quota_owe + p, w->quota_owe + p + 1, (size_t)m * sizeof *w->quota_owe);
        memmove(w->quota_k + p, w->quota_k + p + 1, (size_t)m * sizeof *w->quota_k);
        owed_remove(owed_of(E, w), E->owed_words, p);
    }
    if (E->sb) {
        ew_sb *b = E->sb + (size_t)(w - E->subs) * (size_t)E->sb_cap;
        memmove(b + p, b + p + 1, (size_t)m * sizeof *b);
    }
    if (E->tba_held) {
        int64_t *h = E->tba_held + (size_t)(w - E->subs) * (size_t)E->tba_cap;
        memmove(h + p, h + p + 1, (size_t)m * sizeof *h);
    }
    if (w->fe_ibuf) {
        memmove(w->fe_done + p, w->fe_done + p + 1, (size_t)m * sizeof *w->fe_done);
        memmove(w->fe_ibuf + p, w->fe_ibuf + p + 1, (size_t)m * sizeof *w->fe_ibuf);
        memmove(w->fe_slot + p, w->fe_slot + p + 1, (size_t)m * sizeof *w->fe_slot);
        int32_t *pos = E->fe_pos + (size_t)((w - E->subs) / E->nsub) * EW_SLOTS;
        for (int32_t i = p; i < p + m; i++) pos[w->fe_slot[i]] = i;
    }
    if (--w->n == 0 && E->sm_live) E->sm_live[(w - E->subs) / E->nsub]--;
    if (E->wp->on_remove) E->wp->on_remove(w->pol, w, p);
}

/* The last warp of block b ended: the block ends at its latest warp's end. */
static void block_done(ew_state *E, sim_state *st, int32_t b) {
    ew_block *B = &E->blocks[b];
    int64_t t = ns_of_cycle(E, B->end);
    size_t at = (size_t)(B->rec - (int64_t)st->blocks_flushed);
    if (at < st->t->blocks.n) st->t->blocks.v[at].end = t;
    if (sim_engine_push(&st->eng, t, EV_BLOCK_DONE, B->kernel, B->sm) != 0) st->failed = true;
    ew_kernel *K = &E->ks[B->kernel];
    if (++K->done == K->blocks) {
        trace_kernel *tk = &st->t->kernels.v[B->kernel];
        tk->instructions = K->instructions;
        int64_t cycles = B->end - K->first_cycle;
        tk->ipc = cycles > 0 ? (double)K->instructions / (double)cycles : 0;
    }
    B->next_free = E->free_block;
    E->free_block = b;
}

/* ---- the front end (GPGPU-Sim's fetch and decode) ------------------------- */

/* Warp p of sub-core s (slot `slot` of SM sm) has an empty instruction
 * buffer: it waits for a fetch. */
static void fe_want(ew_state *E, warp_sub *w, int32_t p, int32_t sm) {
    w->ready[p] = EW_NEVER;
    const warp_info *wi = &w->info[p];
    const ew_kernel *K = &E->ks[wi->kernel];
    int64_t left = (int64_t)(K->len - wi->pc) + (wi->iters - 1) * K->len;
    size_t at = (size_t)sm * EW_SLOTS + (size_t)w->fe_slot[p];
    E->fe_nb[at] = left < E->fe_ibuf ? (int32_t)left : E->fe_ibuf;
    E->fe_at[at] = w->fe_done[p];
    if (!E->fe_want[sm]) {
        E->fe_sms[sm >> 6] |= 1ULL << (sm & 63);
        E->fe_nsms++;
    }
    E->fe_want[sm] |= 1ULL << w->fe_slot[p];
}

/* [GS] shader_core_ctx::fetch: the SM fetches for the first warp after the
 * slot fetched last (wrapping) whose buffer is empty, and decode puts up
 * to ibuffer of its next instructions in the buffer; they issue from the
 * cycle after decode, c + 2 (an I-cache that always hits). */
static void fe_fetch(ew_state *E, sim_state *st, int32_t sm, int64_t c) {
    for (int32_t n = 0; n < E->fe_warps && E->fe_want[sm]; n++) {
        uint64_t m = E->fe_want[sm];
        int32_t after = E->fe_last[sm] + 1;
        uint64_t hi = after < EW_SLOTS ? m & (~0ULL << after) : 0;
        int32_t slot = __builtin_ctzll(hi ? hi : m);
        E->fe_want[sm] = m & ~(1ULL << slot);
        E->fe_last[sm] = slot;
        int32_t s = E->fe_sub[sm * EW_SLOTS + slot];
        warp_sub *w = &E->subs[s];
        int32_t p = E->fe_pos[sm * EW_SLOTS + slot];
        w->fe_ibuf[p] = E->fe_nb[sm * EW_SLOTS + slot];
        int64_t done = E->fe_at[sm * EW_SLOTS + slot];
        int64_t r = done > c + 2 ? done : c + 2;
        w->ready[p] = r;
        if (r < E->due[s] && set_due(E, s, r) != 0) st->failed = true;
    }
    if (!E->fe_want[sm]) {
        E->fe_sms[sm >> 6] &= ~(1ULL << (sm & 63));
        E->fe_nsms--;
    }
}

/* Who shares with sub-core s a request joining at `at` (1/65536 cycles):
 * *nsm, the SMs DRAM is split between equally, and *nsub, the sub-cores of
 * s's SM its share is split between: those with resident warps of kernels
 * that have mem instructions. With device.dram_share 0 the SMs with such
 * warps; with 1 the SMs with sectors still waiting in their queues then,
 * s's own counted (GPGPU-Sim's crossbar grants round robin among the
 * inputs that hold a packet, iSLIP, so an SM with nothing to send leaves
 * its turn to the others); a share so taken holds for the request's
 * sectors, the queue (sm_mem_queue) bounding how far ahead that is. Only
 * between SMs: counted between sub-cores too, a sub-core finding its SM's
 * others empty would take the SM's whole share for its request while
 * they refill, and lbm alone on isca17-gpgpusim drew 5.6 % more than
 * DRAM's rate (docs/qos.md). */
static inline void mq_sharers(const ew_state *E, int32_t s, int64_t at, int64_t *nsm,
                              int64_t *nsub) {
    int32_t sm = s / E->nsub;
    *nsub = E->mq_subs[sm];
    if (!E->mq_smnext) {
        *nsm = E->nact;
        return;
    }
    int64_t a = 1;
    for (int32_t j = 0, sms = E->nsubs / E->nsub; j < sms; j++) a += j != sm && E->mq_smnext[j] > at;
    *nsm = a;
}

/* The interval between two sectors of sub-core s's share of its SM's
 * memory pipeline for a request joining at `at`: the SM drains at the
 * lower of its port's rate and its equal share of DRAM among the SMs
 * using it (GPGPU-Sim's crossbar arbitrates round robin between SMs), and
 * that is split equally between its sub-cores with memory warps (each
 * sub-core has its own issue register into the SM's one LD/ST unit,
 * GPGPU-Sim's sub-core model); mq_sharers says who shares. */
static inline int64_t mq_interval(const ew_state *E, int32_t s, int64_t at) {
    int64_t nsm, n;
    mq_sharers(E, s, at, &nsm, &n);
    int64_t iv = nsm * E->dram_iv;
    if (iv < E->port_iv) iv = E->port_iv;
    return n > 1 ? iv * n : iv;
}

/* With an L2 (l2_access) the port and DRAM are two streams: the interval
 * between two sectors of sub-core s's share of its SM's port, and of its
 * SM's equal share of DRAM, each split between the SM's sub-cores with
 * memory warps as above. */
static inline int64_t mq_port_interval(const ew_state *E, int32_t s) {
    int32_t n = E->mq_subs[s / E->nsub];
    return n > 1 ? E->port_iv * n : E->port_iv;
}

static inline int64_t mq_dram_interval(const ew_state *E, int32_t s, int64_t at) {
    int64_t nsm, n;
    mq_sharers(E, s, at, &nsm, &n);
    int64_t iv = nsm * E->dram_iv;
    return n > 1 ? iv * n : iv;
}

/* Sectors of warp wi's access of x: a partial warp (a block's last, with
 * lanes_last threads) touches proportionally fewer (its inactive threads
 * make no access), at least one. */
static inline int64_t mq_sectors(const ew_state *E, const ew_kernel *K, const warp_info *wi,
                                 uint32_t x) {
    int64_t n = EW_X_SECTORS(x);
    if (K->lanes_last && wi->wid - E->blocks[wi->block].wid0 == K->warps - 1) {
        n = (n * K->lanes_last + E->warp_size - 1) / E->warp_size;
    }
    return n;
}

/* The pages of managed memory on the GPU, or on their way: an open-addressing
 * map from page number to the cycle it is there (0: an empty slot; pages
 * never leave). */
static int64_t *uvm_find(ew_state *E, sim_state *st, uint64_t page) {
    if (2 * (E->uvm_n + 1) > E->uvm_cap) {
        size_t cap = E->uvm_cap ? 2 * E->uvm_cap : 4096;
        uint64_t *k = calloc(cap, sizeof *k);
        int64_t *v = calloc(cap, sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
            st->failed = true;
            return NULL;
        }
        for (size_t i = 0; i < E->uvm_cap; i++) {
            if (!E->uvm_key[i]) continue;
            size_t h = (size_t)((E->uvm_key[i] * 0x9E3779B97F4A7C15ULL) >> 20) & (cap - 1);
            while (k[h]) h = (h + 1) & (cap - 1);
            k[h] = E->uvm_key[i];
            v[h] = E->uvm_val[i];
        }
        free(E->uvm_key);
        free(E->uvm_val);
        E->uvm_key = k;
        E->uvm_val = v;
        E->uvm_cap = cap;
    }
    uint64_t key = page + 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (E->uvm_cap - 1);
    while (E->uvm_key[h] && E->uvm_key[h] != key) h = (h + 1) & (E->uvm_cap - 1);
    if (!E->uvm_key[h]) {
        E->uvm_key[h] = key;
        E->uvm_val[h] = 0;
        E->uvm_n++;
    }
    return &E->uvm_val[h];
}

/* Where warp wi's access at its pc (n sectors) falls in its working set:
 * sector i's address is ws_addr(&w, i). */
typedef struct ew_where {
    uint64_t base;
    int64_t start;           /* sector position of the access's first sector */
    int64_t region;
    bool scatter;
} ew_where;

static ew_where ws_where(const ew_state *E, const ew_kernel *K, const warp_info *wi, int64_t n) {
    const ew_ws *ws = &K->ws[wi->pc];
    const ew_block *B = &E->blocks[wi->block];
    int64_t a = (B->iters0 - wi->iters) * ws->count + ws->off;
    /* warps sharing a region start at their rank in it: warp r's access a
     * is warp r + 1's access a + 1 (neighbouring threads' data); sharing a
     * stream, they take its accesses in turn (warp r the r-th of each round) */
    int64_t start = a * n;
    if (ws->scope != SIM_SCOPE_WARP) {
        int64_t rank = wi->wid - B->wid0, W = K->warps;
        if (ws->scope == SIM_SCOPE_KERNEL) {
            rank += B->index * K->warps;
            W *= K->blocks;
        }
        if (ws->region) {
            start = (a + rank) * n;
        } else {
            /* a round of the stream: every warp's sectors, a partial warp's
             * fewer (its threads' data lies beside the others') */
            int64_t full = EW_X_SECTORS(K->ext[wi->pc]);
            int64_t round = W * full;
            if (K->lanes_last) {
                int64_t part = (full * K->lanes_last + E->warp_size - 1) / E->warp_size;
                round -= (W / K->warps) * (full - part);
            }
            start = a * round + rank * full;
        }
    }
    uint64_t idx = ws->scope == SIM_SCOPE_WARP ? (uint64_t)wi->wid
                 : ws->scope == SIM_SCOPE_BLOCK ? (uint64_t)B->index : 0;
    /* scattered: the op's accesses (a full warp's) are; a partial warp's
     * fewer sectors lie among the same lines, one a line as the others'
     * (most-room §5.1's 33-thread blocks: the one-thread warp reads the
     * table its block's full warp reads, Appendix A) */
    bool scatter = EW_X_SECTORS(K->ext[wi->pc]) > 16;
    uint64_t span = ws->region ? (uint64_t)ws->region * (scatter ? 4 : 1) : UINT64_C(1) << 36;
    return (ew_where){ .base = ws->base + idx * span, .start = start, .region = ws->region,
                       .scatter = scatter };
}

static inline uint64_t ws_addr(const ew_where *w, int64_t i) {
    uint64_t pos = (uint64_t)(w->start + i);
    if (w->region) pos %= (uint64_t)w->region;
    return w->base + (w->scatter ? pos * 4 : pos);
}

/* Unified memory (device.uvm_page_kb; most-room §5.5): warp wi's managed
 * access touches pages; one not on the GPU faults. A fault waits for a free
 * fault slot of its SM (sm_faults: the SM's TLB misses outstanding), then
 * the GPU migrates pages over the copy link one at a time (uvm_page_kb at
 * copy_bandwidth: faults serialised per GPU), and the page is usable when
 * its migration is done and at least uvm_fault_latency after the fault (the
 * fault's round trip to the driver). Accesses to a page in flight wait for
 * it. Returns the cycle the access's pages are all there (0: already). */
static int64_t uvm_touch(ew_state *E, sim_state *st, int32_t sm, const ew_kernel *K,
                         const warp_info *wi, int64_t n, int64_t c) {
    ew_where w = ws_where(E, K, wi, n);
    int64_t ready = 0;
    uint64_t last = UINT64_MAX;
    for (int64_t i = 0; i < n; i++) {
        uint64_t page = ws_addr(&w, i) * 32 / (uint64_t)E->uvm_page;
        if (page == last) continue;
        last = page;
        int64_t *slot = uvm_find(E, st, page);
        if (!slot) return ready;
        if (*slot) {                       /* there, or on its way */
            if (*slot > c && *slot > ready) ready = *slot;
            continue;
        }
        int64_t *fs = E->uvm_sm_free + (size_t)sm * (size_t)E->uvm_slots, *f = fs;
        for (int32_t j = 1; j < E->uvm_slots; j++)
            if (fs[j] < *f) f = &fs[j];
        int64_t t0 = *f > c ? *f : c;
        int64_t start = t0 > E->uvm_next ? t0 : E->uvm_next;
        E->uvm_next = start + E->uvm_copy;
        int64_t done = start + E->uvm_copy;
        if (done < t0 + E->uvm_lat) done = t0 + E->uvm_lat;
        *f = done;
        *slot = done;
        E->uvm_faults++;
        if (done > ready) ready = done;
    }
    return ready;
}

/* gated(): warp wi's managed access must fault and SM sm has no free fault
 * slot: the cycle one frees (the warp stalls until then, so that the copy
 * link serves faults in the order they are raised); 0 = it may go. */
static int64_t uvm_wait(ew_state *E, int32_t sm, const ew_kernel *K, const warp_info *wi,
                        int64_t n, int64_t c) {
    const int64_t *fs = E->uvm_sm_free + (size_t)sm * (size_t)E->uvm_slots;
    int64_t f = fs[0];
    for (int32_t j = 1; j < E->uvm_slots; j++)
        if (fs[j] < f) f = fs[j];
    if (f <= c) return 0;
    ew_where w = ws_where(E, K, wi, n);
    uint64_t last = UINT64_MAX;
    for (int64_t i = 0; i < n; i++) {
        uint64_t page = ws_addr(&w, i) * 32 / (uint64_t)E->uvm_page;
        if (page == last) continue;
        last = page;
        uint64_t key = page + 1;
        if (!E->uvm_cap) return f;
        size_t h = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (E->uvm_cap - 1);
        while (E->uvm_key[h] && E->uvm_key[h] != key) h = (h + 1) & (E->uvm_cap - 1);
        if (!E->uvm_key[h]) return f;      /* absent: it must fault */
    }
    return 0;
}

/* The L1 of SM sm (device.l1_smem_kb; GPGPU-Sim's l1_cache, sectored):
 * warp wi's access at its pc, n sectors, through the cache. A load's
 * sector that misses is allocated (read-allocate, LRU within its set), a
 * store's updates a line it finds and allocates none (write-through, no
 * write-allocate, as Volta and Turing; most-room Appendix A writes for this
 * reason). Returns the sectors that go on to the memory queue: a load's
 * misses, all of a store's, whose addresses it leaves in E->l2_addr. With
 * probe, only counts (gated()). An access of more than 16 sectors is
 * scattered: one sector per 128-byte line. */
static int64_t l1_access(ew_state *E, int32_t sm, const ew_kernel *K, const warp_info *wi,
                         int64_t n, bool store, bool probe) {
    ew_where wh = ws_where(E, K, wi, n);
    uint64_t clk = probe ? 0 : ++E->l1_clock[sm];
    int64_t miss = 0;
    int32_t A = E->l1_assoc;
    /* the access's sectors one after another (ws_addr(&wh, i) for each i),
     * their line and its set kept as they go: a division only where the
     * walk wraps around its region */
    uint64_t sets = (uint64_t)E->l1_sets, step = wh.scatter ? 4 : 1;
    uint64_t region = wh.region ? (uint64_t)wh.region : 0;
    uint64_t pos = region ? (uint64_t)wh.start % region : (uint64_t)wh.start;
    uint64_t addr = wh.base + pos * step, line = addr >> 2, lset = line % sets;
    for (int64_t i = 0; i < n; i++) {
        if (i > 0) {
            if (region && ++pos == region) {
                pos = 0;
                addr = wh.base;
                line = addr >> 2;
                lset = line % sets;
            } else {
                addr += step;
                if (addr >> 2 != line) {   /* the next line: step <= 4 */
                    line = addr >> 2;
                    if (++lset == sets) lset = 0;
                }
            }
        }
        uint8_t bit = (uint8_t)(1u << (addr & 3));
        size_t set = ((size_t)sm * (size_t)E->l1_sets + (size_t)lset) * (size_t)A;
        ew_l1way *way = E->l1_way + set;
        int32_t w = 0;
        while (w < A && way[w].tag != line + 1) w++;
        bool found = w < A;
        if (store) {
            if (!probe) {
                E->l2_addr[i] = addr;   /* every store sector goes on (write-through) */
                if (found) way[w].use = clk << 4 | (way[w].use & 15) | bit;
            }
            continue;
        }
        if (found && (way[w].use & bit)) {
            if (!probe) {
                way[w].use = clk << 4 | (way[w].use & 15);
                E->l1_hits++;
            }
            continue;
        }
        if (probe) {
            miss++;
            continue;
        }
        E->l2_addr[miss++] = addr;
        E->l1_misses++;
        if (found) {
            way[w].use = clk << 4 | (way[w].use & 15) | bit;
        } else {
            int32_t victim = 0;   /* the least recently used way, the first of equals */
            for (int32_t v = 1; v < A; v++)
                if (way[v].use >> 4 < way[victim].use >> 4) victim = v;
            way[victim].tag = line + 1;
            way[victim].use = clk << 4 | bit;
        }
    }
    return store ? n : miss;
}

/* Without an L1 every sector of warp wi's access (n) leaves the SM: their
 * addresses for the L2. */
static void l2_addrs(ew_state *E, const ew_kernel *K, const warp_info *wi, int64_t n) {
    ew_where wh = ws_where(E, K, wi, n);
    for (int64_t i = 0; i < n; i++) E->l2_addr[i] = ws_addr(&wh, i);
}

/* The L2 (device.l2_kb; GPGPU-Sim's l2_cache, SM7_TITANV -gpgpu_cache:dl2
 * S:32:128:24,L:B:m:L: sectored, LRU, write-back, allocate on miss, a
 * store's sectors allocated without reading them, "lazy fetch on read"):
 * the m sectors in E->l2_addr that left an SM, one GPU-wide cache (the
 * memory partitions' slices together; a line's set is its address modulo
 * the sets, where GPGPU-Sim hashes it to a slice). A load's sector that
 * misses is allocated clean, a store's sector is allocated or updated
 * dirty; a line evicted with dirty sectors writes them back to DRAM.
 * Returns the sectors that go to DRAM: the misses of a load (a store never
 * waits for DRAM), and *wb the sectors written back. */
/* The set bits of a line's four dirty flags (a table: the baseline x86-64
 * build has no popcnt instruction, and libgcc's __popcountdi2 was 1 % of
 * bench_warp's memory-system profile). */
static const uint8_t ew_bits4[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

static int64_t l2_access(ew_state *E, int64_t m, bool store, int64_t *wb) {
    uint64_t clk = ++E->l2_clock;
    int64_t miss = 0;
    int32_t A = E->l2_assoc;
    *wb = 0;
    uint64_t last = 0;       /* the line of the sector before, + 1: found at way w */
    uint64_t *tag = NULL, *lru = NULL;
    uint8_t *mask = NULL;
    int32_t w = 0;
    for (int64_t i = 0; i < m; i++) {
        uint64_t addr = E->l2_addr[i];
        uint64_t line = addr >> 2;
        uint8_t bit = (uint8_t)(1u << (addr & 3));
        if (i == 0 || line + 1 != last) {
            /* a new line (a coalesced access's sectors share one) */
            size_t set = (size_t)(line % (uint64_t)E->l2_sets) * (size_t)A;
            tag = E->l2_tag + set;
            lru = E->l2_lru + set;
            mask = E->l2_mask + set;
            /* the tags searched and the least recently used way (the first
             * of equals) kept as they go, by selects: which way is older is
             * data the predictor misses */
            int32_t victim = 0;
            uint64_t oldest = UINT64_MAX;
            for (w = 0; w < A && tag[w] != line + 1; w++) {
                uint64_t u = lru[w];
                bool older = u < oldest;
                victim = older ? w : victim;
                oldest = older ? u : oldest;
            }
            if (w == A) {
                /* not held: the least recently used line makes room, its
                 * dirty sectors written back */
                *wb += ew_bits4[mask[victim] >> 4];
                tag[victim] = line + 1;
                mask[victim] = 0;
                w = victim;
            }
            last = line + 1;
        }
        lru[w] = clk;
        if (store) {
            mask[w] |= (uint8_t)(bit | bit << 4);
            continue;
        }
        if (mask[w] & bit) {
            E->l2_hits++;
            continue;
        }
        mask[w] |= bit;
        miss++;
        E->l2_misses++;
    }
    E->l2_writebacks += *wb;
    return miss;
}

/* A memory warp of sub-core s leaves at cycle r, when its last access is
 * served (it counts in its SM's share of DRAM until then): mq_release. */
static void mq_leave(ew_state *E, sim_state *st, int32_t s, int64_t r) {
    if (E->mq_nend == E->mq_capend) {
        size_t cap = E->mq_capend ? 2 * E->mq_capend : 64;
        ew_due *v = realloc(E->mq_end, cap * sizeof *v);
        if (!v) {
            st->failed = true;
            return;
        }
        E->mq_end = v;
        E->mq_capend = cap;
    }
    E->mq_end[E->mq_nend++] = (ew_due){ r, s };
}

/* At the start of cycle c: the warps that left by then stop counting. */
static void mq_release(ew_state *E, int64_t c) {
    size_t j = 0;
    for (size_t i = 0; i < E->mq_nend; i++) {
        ew_due e = E->mq_end[i];
        if (e.c > c) {
            E->mq_end[j++] = e;
            continue;
        }
        if (--E->mq_warps[e.s] == 0 && --E->mq_subs[e.s / E->nsub] == 0) E->nact--;
    }
    E->mq_nend = j;
}

/* The cycle sub-core s has a free LD/ST slot from (device.ldst_queue): its
 * earliest. */
static inline int64_t lq_free(const ew_state *E, int32_t s) {
    const int64_t *f = &E->lq_free[(size_t)s * (size_t)E->lq_n];
    int64_t m = f[0];
    for (int32_t i = 1; i < E->lq_n; i++) m = f[i] < m ? f[i] : m;
    return m;
}

/* A memory instruction issued by sub-core s at cycle c takes a slot of its
 * LD/ST queue until the SM's L1 takes it (GPGPU-Sim shader.cc: the
 * instruction waits in an operand collector, then in the OC_EX_MEM
 * register, until ldst_unit::issue moves it to the unit, which takes the
 * oldest; the scheduler issues only into a free ID_OC register, and a
 * collector unit frees only when its instruction moves on). The L1 takes
 * the SM's instructions in issue order (l1_pass: l1_next). */
static inline void lq_take(ew_state *E, int32_t s, int64_t c) {
    int64_t *f = &E->lq_free[(size_t)s * (size_t)E->lq_n];
    int32_t m = 0;
    for (int32_t i = 1; i < E->lq_n; i++) m = f[i] < f[m] ? i : m;
    int64_t t = (E->l1_next[s / E->nsub] + (1 << EW_FRAC) - 1) >> EW_FRAC;
    f[m] = t > c ? t : c;
}

/* The L1's rate (device.l1_sectors; measured on an H200,
 * docs/most-room-h100.md): an access of n sectors issued at cycle c passes
 * SM sm's L1 behind the accesses before it, the SM's warps together taking
 * l1_sectors sectors a cycle (one warp of 32 waited for 32 scattered
 * sectors in 69 cycles where one sector took 39, so the L1's sectors do not
 * come faster for one access, while 32 warps got 2.87 sectors a cycle from
 * the same L1: the recording's serial runs), and the access itself one
 * 128-byte line a cycle (a scattered access's sectors each a line, a
 * coalesced one's four a line; GPGPU-Sim's ldst_unit also takes one line of
 * an access a cycle). Returns the cycle after its lookups, from which a
 * hit's latency_l1 runs (c when nothing waits: a one-line access costs
 * latency_l1 as without the rate); the sectors that miss go on from there
 * (*at, 1/65536 cycles). */
static int64_t l1_pass(ew_state *E, int32_t sm, int64_t n, bool scattered, int64_t c,
                       int64_t *at) {
    int64_t lines = scattered ? n : (n + 3) / 4;
    int64_t t = c << EW_FRAC;
    if (E->l1_next[sm] > t) t = E->l1_next[sm];
    E->l1_next[sm] = t + n * E->l1_iv;
    int64_t done = (E->l1_next[sm] + (1 << EW_FRAC) - 1) >> EW_FRAC;
    if (done < c + lines) done = c + lines;
    done--;
    if ((done << EW_FRAC) > *at) *at = done << EW_FRAC;
    return done;
}

/* The cycle warp p (of sub-core s, running K) may issue its next
 * instruction, at pc, from cycle `from` on: with the scoreboard, when the
 * results it reads have completed (GPGPU-Sim scheduler_unit::cycle skips a
 * warp whose instruction checkCollision finds pending). */
static int64_t dep_ready(const ew_state *E, const ew_kernel *K, int32_t s, int32_t p, int32_t pc,
                         int64_t from) {
    if (!K->dep) return from;
    const ew_sb *sb = &E->sb[(size_t)s * (size_t)E->sb_cap + (size_t)p];
    for (uint32_t dv = K->dep[pc]; dv; dv >>= 5) {
        int64_t dist = dv & 31;
        if (dist <= sb->n) {
            int64_t t = sb->done[(sb->n - dist) & (EW_SB - 1)];
            if (t > from) from = t;
        }
    }
    return from;
}

/* The last of block b's warps has reached its barrier: all go on, each
 * from `from` (the last one's barrier instruction's latency) or when its
 * next instruction's operands are ready ([GS] barrier_set_t: the CTA's
 * warps waiting at bar.sync are released together when the last arrives).
 * A block's warps run the same instructions, so none ends while others
 * wait at a barrier (a barrier that is a warp's last instruction ends it).
 * Their sub-cores are woken. */
static void bar_release(ew_state *E, sim_state *st, int32_t b, int64_t from) {
    ew_block *B = &E->blocks[b];
    B->at_bar = 0;
    for (int32_t s = B->sm * E->nsub; s < (B->sm + 1) * E->nsub; s++) {
        warp_sub *w = &E->subs[s];
        int64_t first = INT64_MAX;
        for (int32_t p = 0; p < w->n; p++) {
            if (w->ready[p] != EW_BAR || w->info[p].block != b) continue;
            w->ready[p] = dep_ready(E, &E->ks[w->info[p].kernel], s, p, w->info[p].pc, from);
            if (w->ready[p] < first) first = w->ready[p];
            /* a quota's charge of the barrier instruction falls due now */
            if (w->quota_owe && w->quota_owe[p] && w->ready[p] < w->owe_due)
                w->owe_due = w->ready[p];
        }
        if (first < E->due[s] && set_due(E, s, first) != 0) st->failed = true;
    }
}

/* Sub-core s issues warp p's next instruction at cycle c. */
static inline __attribute__((always_inline)) void issue(ew_state *E, sim_state *st, int32_t s,
                                                       warp_sub *w, int32_t p, int64_t c) {
    warp_info *wi = &w->info[p];
    int32_t k = wi->kernel;
    ew_kernel *K = &E->ks[k];
    uint32_t op = K->code[wi->pc];
    /* the instruction's EW_X_* bits: a device with a gate (the memory
     * system, the LD/ST unit, fp32 pipes) gives every program them */
    uint32_t ext = K->ext ? K->ext[wi->pc] : 0;
    int64_t r;
    if (ext & EW_X_FP32) {
        /* the sub-core's fp32 pipe takes the instruction (gated() waited for it) */
        int64_t at = c << EW_FRAC;
        if (E->fp_next[s] > at) at = E->fp_next[s];
        E->fp_next[s] = at + E->fp_iv;
    }
    if ((op & 1) && E->mx) {
        /* the sectored memory system (docs/memory.md): the access's sectors
         * join the SM's queue, which drains at the lower of the SM port's
         * rate and the SM's equal share of DRAM among the SMs using it
         * (GPGPU-Sim's crossbar arbitrates round robin between SMs); a
         * load's warp waits for its last sector plus latency_mem, a
         * store's goes on after issue (write-through, no allocate) */
        assert(K->ext);   /* E->mx sets E->gate (warp_init) */
        uint32_t x = ext;
        int64_t n = mq_sectors(E, K, wi, x);
        bool store = x & EW_X_STORE;
        if (wi->mq_ticket) {
            /* mem_admission 1: gated() let only the warp whose turn it was in */
            E->mq_head[s] = wi->mq_ticket + 1;
            wi->mq_ticket = 0;
        }
        int64_t page_ready = (x & EW_X_MANAGED) ? uvm_touch(E, st, s / E->nsub, K, wi, n, c) : 0;
        int64_t at = c << EW_FRAC, l1_done = c;
        if (E->lq_n) lq_take(E, s, c);
        if (E->l1_iv) l1_done = l1_pass(E, s / E->nsub, n, EW_X_SECTORS(x) > 16, c, &at);
        if (E->l1_sets > 0) n = l1_access(E, s / E->nsub, K, wi, n, store, false);
        else if (E->l2_sets > 0) l2_addrs(E, K, wi, n);
        int64_t dram = n, wb = 0;
        if (n > 0 && E->l2_sets > 0) {
            /* with an L2 the port and DRAM are two streams: every sector
             * that left the SM passes its sub-core's share of the port (a
             * hit, a miss's data, a store); DRAM's share serves the misses
             * and the dirty sectors they evict (l2_access); a load waits
             * for both when it missed, for the port alone when it hit */
            dram = l2_access(E, n, store, &wb);
            int64_t pt = at > E->mq_port[s] ? at : E->mq_port[s];
            pt += n * mq_port_interval(E, s);
            E->mq_port[s] = pt;
            int64_t done = pt;
            if (dram + wb > 0) {
                int64_t dt = at > E->mq_dram[s] ? at : E->mq_dram[s];
                dt += (dram + wb) * mq_dram_interval(E, s, at);
                E->mq_dram[s] = dt;
                if (dram > 0 && dt > done) done = dt;
            }
            at = done;
            E->mq_next[s] = E->mq_port[s] > E->mq_dram[s] ? E->mq_port[s] : E->mq_dram[s];
            E->sectors += n;
        } else if (n > 0) {
            int64_t iv = mq_interval(E, s, at);
            if (at < E->mq_next[s]) at = E->mq_next[s];
            at += n * iv;
            E->mq_next[s] = at;
            E->sectors += n;
        }
        if (E->mq_smnext && E->mq_next[s] > E->mq_smnext[s / E->nsub])
            E->mq_smnext[s / E->nsub] = E->mq_next[s];
        if (store) r = c + (op >> 1);
        else if (n == 0) r = l1_done + E->l1_lat;   /* every sector hit the L1 */
        else {
            /* a load's data comes back after the L2's latency when all it
             * asked of the L2 was there, else after latency_mem's */
            int64_t lat = E->l2_sets > 0 && dram == 0 ? (int64_t)E->l2_lat : (int64_t)(op >> 1);
            r = ((at + (1 << EW_FRAC) - 1) >> EW_FRAC) + lat;
            if (E->l1_sets > 0 && r < l1_done + E->l1_lat) r = l1_done + E->l1_lat;
        }
        /* a page not yet on the GPU: the warp waits for its migration */
        if (page_ready > r) r = page_ready;
    } else if (op & 1) {
        /* the shared memory system, first come first served: the
         * instruction's requests take the next free slots, and its latency
         * runs from the last of them */
        int64_t at = c << EW_FRAC;
        if (at < E->mem_next) at = E->mem_next;
        /* §3.6's sample counts the warp idle until its request is taken
         * (tba_sample) */
        if (E->tba_held)
            E->tba_held[(size_t)s * (size_t)E->tba_cap + (size_t)p] = at >> EW_FRAC;
        at += K->mem_span;
        E->mem_next = at + E->mem_interval;
        if (E->port_next) {
            /* and through the SM's own port, first come first served */
            int64_t *pn = &E->port_next[s / E->nsub];
            int64_t pt = c << EW_FRAC;
            if (pt < *pn) pt = *pn;
            pt += K->port_span;
            *pn = pt + E->port_interval;
            if (pt > at) at = pt;
        }
        r = ((at + (1 << EW_FRAC) - 1) >> EW_FRAC) + (op >> 1);
    } else if (E->lq_n && (ext & EW_X_LDST)) {
        /* a shared-memory access passes the SM's LD/ST unit too, one a
         * cycle in issue order (GPGPU-Sim ldst_unit::shared_cycle, on the
         * same dispatch register as global accesses), and its latency runs
         * from there */
        lq_take(E, s, c);
        int64_t *ln = &E->l1_next[s / E->nsub];
        int64_t t = c << EW_FRAC;
        if (*ln > t) t = *ln;
        *ln = t + (1 << EW_FRAC);
        r = ((t + (1 << EW_FRAC) - 1) >> EW_FRAC) + (op >> 1);
    } else {
        r = c + (op >> 1);
    }
    /* the scoreboard: the instruction's result is pending until r
     * (GPGPU-Sim Scoreboard::reserveRegisters at issue, releaseRegisters at
     * writeback) */
    ew_sb *sb = NULL;
    if (K->dep) {
        sb = &E->sb[(size_t)s * (size_t)E->sb_cap + (size_t)p];
        sb->done[sb->n++ & (EW_SB - 1)] = r;
        if (r > sb->last) sb->last = r;
    }
    w->ready[p] = r;
    w->hint = p;
    K->instructions++;
    if (K->epoch_issues++ == 0) E->touched[E->ntouched++] = k;
    /* ISCA'17 §3.4.1: "When a warp instruction of k is completed, C_k is
     * decremented by the number of instructions that are actually executed
     * in the warp instruction": the warp's threads (a block's last warp may
     * be partial), owed until the instruction's latency has passed */
    int32_t lanes = 0;
    if (E->quota) {
        lanes = st->dev->warp_size;
        if (K->lanes_last && wi->wid - E->blocks[wi->block].wid0 == K->warps - 1)
            lanes = K->lanes_last;
    }
    if (E->limit > 0) {
        E->limit--;
        trace_warp_issue *x = trace_add_warp_issue(st->t);
        if (x) {
            x->sm = s / E->nsub;
            x->subcore = s % E->nsub;
            x->cycle = c;
            x->warp = (int32_t)(wi->wid & INT32_MAX);
            x->kernel = k;
        }
    }
    if (w->fe_ibuf) w->fe_done[p] = r;
    if (++wi->pc < K->len || (wi->pc = 0, --wi->iters > 0)) {
        if (sb) {
            /* the next instruction issues when the results it reads have
             * completed (GPGPU-Sim scheduler_unit::cycle skips a warp whose
             * instruction checkCollision finds pending), and no sooner than
             * the next cycle (SM7_TITANV -gpgpu_max_insn_issue_per_warp 1) */
            int64_t nr = dep_ready(E, K, s, p, wi->pc, c + 1);
            w->ready[p] = nr;
            if (w->fe_ibuf) w->fe_done[p] = nr;
        }
        if (K->bar && K->bar[(wi->pc ? wi->pc : K->len) - 1]) {
            /* a barrier: the warp waits for its block's other warps
             * (warp_check refuses barriers with a front end) */
            ew_block *B = &E->blocks[wi->block];
            w->ready[p] = EW_BAR;
            if (++B->at_bar == B->warps_left) bar_release(E, st, wi->block, r);
        }
        if (E->quota && sb) {
            /* in flight beside the warp's next instructions (above) */
            if (charge_push(&E->chq[s], r, E->qk[k], lanes) != 0) st->failed = true;
            if (r < w->owe_due) w->owe_due = r;
        } else if (E->quota) {
            w->quota_owe[p] = lanes;
            uint64_t *ob = owed_of(E, w) + (p >> 6), bit = 1ULL << (p & 63);
            *ob = lanes ? *ob | bit : *ob & ~bit;
            if (r < w->owe_due) w->owe_due = r;
        }
        if (w->fe_ibuf && --w->fe_ibuf[p] == 0) fe_want(E, w, p, s / E->nsub);
        return;
    }
    /* the warp has issued its last instruction: its slot is free */
    if (w->fe_ibuf) E->fe_used[s / E->nsub] &= ~(1ULL << w->fe_slot[p]);
    /* the warp's last instruction: it ends when that one's latency has
     * passed (a quota charges it now: the warp leaves the sub-core) */
    if (E->quota) quota_charge(&E->q, s / E->nsub, E->qk[k], lanes, c);
    int32_t b = wi->block;
    if (sb && sb->last > r) r = sb->last;   /* the warp ends when all its results are in */
    if (E->mx && K->uses_mem) {
        /* a block ends when its writes have left its sub-core's queue (a
         * kernel's end waits for its stores; the warp went on after
         * issue), and counts in its SM's share of DRAM until then */
        int64_t qe = (E->mq_next[s] + (1 << EW_FRAC) - 1) >> EW_FRAC;
        if (qe > r) r = qe;
        mq_leave(E, st, s, r);
    }
    remove_warp(E, w, p);
    ew_block *B = &E->blocks[b];
    if (r > B->end) B->end = r;
    if (E->quota) quota_leave(&E->q, s / E->nsub, E->qk[k], c);
    if (--B->warps_left == 0) {
        block_done(E, st, b);
        /* the quota window ends with the kernel's last issue slot */
        if (E->quota && K->done == K->blocks) quota_done(&E->q, E->qk[k], c + 1);
    }
}

/* device.mem_admission 1, arrival order (measured on an H200: beside 32
 * warps of another kernel that GTO issues first, one warp storing as fast
 * as they could still progressed at 0.74 of their rate, where the
 * scheduler's pick would give it all or nothing; docs/most-room-h100.md):
 * a warp whose memory instruction finds its sub-core's queue without room,
 * or other warps waiting, takes a ticket, and the queue takes the waiting
 * warps in ticket order, each when there is room for its sectors, in
 * whatever order the scheduler picks them. Returns the time (EW_FRAC units)
 * from which warp wi may enter: `room` when it is its turn, else when its
 * turn should come (each warp ahead of it taking about as many sectors),
 * a cycle from now at the earliest; it then looks again. */
static int64_t mq_turn(ew_state *E, int32_t s, warp_info *wi, int64_t room, int64_t n,
                       int64_t iv, int64_t at) {
    if (!wi->mq_ticket) {
        if (E->mq_head[s] > E->mq_tail[s] && room <= at) return room;
        wi->mq_ticket = ++E->mq_tail[s];
    }
    int64_t ahead = wi->mq_ticket - E->mq_head[s];
    if (ahead <= 0) return room;
    int64_t turn = room + ahead * (n > 0 ? n : 1) * iv;
    return turn > at ? turn : at + (1 << EW_FRAC);
}

/* With the memory system or fp32 pipes on: warp p's next instruction
 * cannot start at cycle c when its SM's memory queue has no room for its
 * sectors (a load finds the MSHRs full, a store the write buffer: the warp
 * stalls, GPGPU-Sim's ldst_unit) or its fp32 pipe is busy (the
 * instruction's initiation interval, GPGPU-Sim's -ptx_opcode_initiation_fp);
 * then it becomes ready when there is room and the scheduler picks again,
 * in its own order (so under GTO the greedy warp, else the oldest waiting
 * one, takes the room),
 * or, with device.mem_admission 1, in the order the warps came (mq_turn). */
static bool gated(ew_state *E, int32_t s, warp_sub *w, int32_t p, int64_t c) {
    warp_info *wi = &w->info[p];
    const ew_kernel *K = &E->ks[wi->kernel];
    uint32_t x = K->ext[wi->pc];
    int64_t at = c << EW_FRAC, t = at;
    if ((x & EW_X_FP32) && E->fp_next[s] > at) t = E->fp_next[s];
    if (E->mx && (K->code[wi->pc] & 1)) {
        int64_t n = mq_sectors(E, K, wi, x);
        if ((x & EW_X_MANAGED) && E->uvm_slots < 1024) {
            int64_t f = uvm_wait(E, s / E->nsub, K, wi, n, c);
            if (f > c && (f << EW_FRAC) > t) t = f << EW_FRAC;
        }
        /* the queue's drain rate now (with dram_share 1 a scan of the SMs:
         * taken once for both uses below) */
        int64_t iv = mq_interval(E, s, at);
        if (E->l1_sets > 0 && !(x & EW_X_STORE)) {
            /* the load's misses need room; where there is room for all its
             * sectors (and nobody waits for it) the count cannot hold the
             * warp back, and the probe is skipped */
            bool fits = !wi->mq_ticket && E->mq_next[s] - (E->mq_cap - n) * iv <= at &&
                        (!E->mq_arrival || E->mq_head[s] > E->mq_tail[s]);
            n = fits ? 0 : l1_access(E, s / E->nsub, K, wi, n, false, true);
        }
        if (n > 0 || wi->mq_ticket) {
            int64_t room = E->mq_next[s] - (E->mq_cap - n) * iv;
            if (E->mq_arrival) room = mq_turn(E, s, wi, room, n, iv, at);
            if (room > t) t = room;
        }
    }
    if (t <= at) return false;
    w->ready[p] = (t + (1 << EW_FRAC) - 1) >> EW_FRAC;
    if (w->ready[p] <= c) w->ready[p] = c + 1;
    return true;
}

/* While sub-core s's fp32 pipe is busy, every warp whose next instruction
 * needs it is held until it frees, in one pass (what gated() would do to
 * each as the policy picked it, without picking again for each). */
static void fp_hold(ew_state *E, int32_t s, warp_sub *w, int64_t c) {
    int64_t f = E->fp_next[s];
    if (f <= c << EW_FRAC) return;
    int64_t t = (f + (1 << EW_FRAC) - 1) >> EW_FRAC;
    for (int32_t i = 0; i < w->n; i++) {
        if (w->ready[i] > c) continue;
        const ew_kernel *K = &E->ks[w->info[i].kernel];
        if (K->ext && (K->ext[w->info[i].pc] & EW_X_FP32)) w->ready[i] = t;
    }
}

/* The policy's pick, skipping warps gated() holds back. */
static inline int32_t pick_gated(ew_state *E, int32_t s, warp_sub *w, void *pol, int64_t c) {
    int32_t p;
    if (E->fp_iv) fp_hold(E, s, w, c);
    while ((p = E->pick(pol, w, c)) >= 0 && gated(E, s, w, p, c)) {}
    return p;
}

/* Sub-core j, asleep in a cycle where the quota rule (run_subcore_quota)
 * has it look every cycle, looks in cycle c after all: it runs in c if
 * c is the cycle being run and j comes later in it (the scan of run_cycle
 * reaches it), else in the next one. */
static void qpoll_wake(ew_state *E, sim_state *st, int32_t j, int64_t c) {
    if (c >= E->due[j]) return;
    if (c > E->cur) {
        if (set_due(E, j, c) != 0) st->failed = true;
        return;
    }
    unslot(E, j);
    E->due[j] = c;
    E->now[j >> 6] |= 1ULL << (j & 63);
}

/* After sub-core s's turn in cycle c (or, s = -1, before SM sm's cycle c
 * runs: a block joined it): where a counter of the SM was raised, or s
 * has no warp left there (the others no longer share the counters with
 * it), the SM's sleeping sub-cores look again -- the cycle the rule would
 * have had them see it: this one if their turn is still to come. */
static void qpoll_raised(ew_state *E, sim_state *st, int32_t sm, int32_t s, int64_t c) {
    E->q.raised[sm] = 0;
    for (int32_t j = sm * E->nsub; j < (sm + 1) * E->nsub; j++)
        if (j != s && E->qpoll[j]) qpoll_wake(E, st, j, j > s ? c : c + 1);
}

/* run_subcore under a quota policy: a warp whose kernel has used its quota
 * cannot issue before the sub-core gets quota again (quota_wake, or another
 * sub-core's charge: below), so the sub-core sleeps until then instead of
 * polling every cycle. */
static void run_subcore_quota(ew_state *E, sim_state *st, int32_t s, int64_t c) {
    warp_sub *w = &E->subs[s];
    int32_t sm = s / E->nsub;
    /* the instructions that have completed are charged (quota_owe); a
     * throttled sub-core looks every cycle, so the scan waits for the
     * first owed completion (owe_due) */
    if (c >= w->owe_due) {
        int32_t *owe = w->quota_owe;
        /* an instruction completes when the warp may issue again, or, with
         * a front end, at the latency kept apart from the fetch */
        const int64_t *done = w->fe_done ? w->fe_done : w->ready;
        /* the warps that owe, in position order: each completed one is
         * charged (a charge touches neither array), the others give the
         * next completion. The run visits only the owing ones (their bits);
         * with every_quota_look (the tests) every warp is looked at, which
         * must charge the same */
        int64_t next = INT64_MAX;
        uint64_t *ob = owed_of(E, w);
        if (st->cfg->every_quota_look) {
            for (int32_t i = 0; i < w->n; i++) {
                if (!owe[i]) continue;
                if (done[i] > c) {
                    next = done[i] < next ? done[i] : next;
                    continue;
                }
                quota_charge(&E->q, sm, w->quota_k[i], owe[i], c);
                owe[i] = 0;
                ob[i >> 6] &= ~(1ULL << (i & 63));
            }
        } else {
            /* each word's owing warps split into the completed ones (a
             * mask, without a branch on each: which have completed is
             * data the predictor misses) and the next completion, then
             * the completed ones charged in position order */
            for (int32_t x = 0; x < E->owed_words; x++) {
                uint64_t due = 0;
                for (uint64_t m = ob[x]; m; m &= m - 1) {
                    int32_t i = x * 64 + __builtin_ctzll(m);
                    int64_t d = done[i];
                    due |= (uint64_t)(d <= c) << (i & 63);
                    int64_t late = d > c ? d : INT64_MAX;
                    next = late < next ? late : next;
                }
                ob[x] &= ~due;
                for (; due; due &= due - 1) {
                    int32_t i = x * 64 + __builtin_ctzll(due);
                    quota_charge(&E->q, sm, w->quota_k[i], owe[i], c);
                    owe[i] = 0;
                }
            }
        }
        /* and the scoreboarded warps' instructions in flight */
        if (E->chq) {
            int64_t h = charge_due(E, &E->chq[s], sm, c);
            next = h < next ? h : next;
        }
        w->owe_due = next;
    }
    quota_begin(&E->q, sm, c);
    if (E->fp_iv) fp_hold(E, s, w, c);
    /* every quota policy's pick is the EWS's (QUOTA_POLICY), called inline */
    void *pol = w->pol;
    /* every LD/ST slot held: the sub-core issues nothing (lq_take) */
    int32_t p = E->lq_n && lq_free(E, s) > c ? -1 : quota_ews_pick(pol, w, c);
    while (E->gate && p >= 0 && gated(E, s, w, p, c)) p = quota_ews_pick(pol, w, c);
    if (p >= 0) {
        /* the policy hears of the issue first (warp.h); a warp that
         * issues its last instruction then leaves (on_remove) */
        if (E->on_issue) E->on_issue(pol, w, p);
        issue(E, st, s, w, p, c);
    }
    if (E->qpoll[s]) {
        E->qpoll[s] = 0;
        E->nqpoll--;
    }
    if (w->n == 0) {
        E->due[s] = INT64_MAX;
        qpoll_raised(E, st, sm, s, c);
        /* its last warps' instructions still in flight are charged when
         * they complete */
        if (E->chq && E->chq[s].n > 0 && set_due(E, s, w->owe_due) != 0) st->failed = true;
        return;
    }
    const int64_t *r = w->ready, *cnt = w->quota_cnt;
    int64_t d = INT64_MAX, da = INT64_MAX;
    bool poll = false;
    if (!quota_held(&E->q, sm)) {
        /* nothing throttled here: the earliest ready warp, as without
         * quotas (one ready by the next cycle settles it: below, d is at
         * least c + 1) */
        for (int32_t i = 0; i < w->n && d > c + 1; i++) d = r[i] < d ? r[i] : d;
        da = d;
    } else {
        /* the SM's counters are shared by its sub-cores (quota.h): while
         * another sub-core of the SM holds warps, a charge or a warp
         * leaving there may refill them at any cycle, so a throttled warp
         * looks again the next cycle. That is the rule; the sub-core
         * sleeps instead (qpoll) while the rule would have it look every
         * cycle and find the same -- a throttled warp ready whose next
         * instruction no fp32 pipe holds back (fp_hold) -- and is woken at
         * the first cycle the rule's look would find something else: an
         * instruction's charge (owe_due), a warp with quota ready, the
         * manager's next boundary (quota_wake), a fetch or a joining
         * block (set_due), and, from the other sub-cores, a raised counter
         * or the last of them emptied (qpoll_raised). The cycles run are
         * the rule's (nqpoll), and so is every trace, to the cycle: only
         * the looks that would change nothing are skipped, about half of
         * all turns in a QoS sweep. */
        int64_t qw = quota_wake(&E->q, sm, c);
        /* another sub-core of the SM holds warps (this one does: w->n > 0) */
        int64_t wake = E->sm_live[sm] > 1 ? c + 1 : qw;
        for (int32_t i = 0; i < w->n; i++) {
            int64_t t = r[i], ta = r[i];
            if (cnt[w->quota_k[i]] <= 0) {
                if (t < wake) t = wake;
                if (ta < qw) ta = qw;
                if (wake == c + 1 && r[i] <= c &&
                    !(E->fp_iv && E->ks[w->info[i].kernel].ext &&
                      (E->ks[w->info[i].kernel].ext[w->info[i].pc] & EW_X_FP32)))
                    poll = true;
            }
            if (t < d) d = t;
            if (ta < da) da = ta;
            /* settled: d <= da <= c + 1 make the turn's answer the next
             * cycle, whatever the other warps (and poll: below, da <= c + 1
             * clears it) */
            if (da <= c + 1) break;
        }
    }
    /* with a front end a warp may wait for its fetch past its instruction's
     * completion, when the charge is due (§3.4.1): wake for it */
    if ((w->fe_done || E->chq) && w->owe_due < d) d = w->owe_due;
    if (d <= c) d = c + 1;
    if (E->lq_n) {
        /* every LD/ST slot held until f: nothing issues before it, but the
         * charges owed fall due on their cycles */
        int64_t f = lq_free(E, s);
        if (f > d) {
            d = w->owe_due > c && w->owe_due < f ? w->owe_due : f;
            poll = false;
        }
    }
    if (poll && !st->cfg->every_quota_look) {
        if (w->owe_due < da) da = w->owe_due;
        if (da > c + 1) {   /* else the next cycle's turn looks anyway */
            d = da;
            E->qpoll[s] = 1;
            E->nqpoll++;
        }
    }
    E->due[s] = d;
    if (E->q.raised[sm]) qpoll_raised(E, st, sm, s, c);
    if (d >= EW_BAR) return;   /* every warp waits for a fetch (fe_fetch wakes it) or at a
                                  barrier (bar_release wakes it) */
    if (in_wheel(E, d)) {
        size_t slot = (size_t)(d & (EW_WHEEL - 1));
        E->wheel[slot * (size_t)E->words + (size_t)(s >> 6)] |= 1ULL << (s & 63);
        E->summary[slot >> 6] |= 1ULL << (slot & 63);
    } else if (heap_push(E, d, s) != 0) {
        st->failed = true;
    }
}

static void run_subcore(ew_state *E, sim_state *st, int32_t s, int64_t c) {
    warp_sub *w = &E->subs[s];
    void *pol = w->pol;
    int32_t p = E->lq_n && lq_free(E, s) > c ? -1   /* every LD/ST slot held (lq_take) */
              : E->gate ? pick_gated(E, s, w, pol, c) : E->pick(pol, w, c);
    if (p >= 0) {
        if (E->on_issue) E->on_issue(pol, w, p);   /* as above */
        issue(E, st, s, w, p, c);
    }
    if (w->n == 0) {
        E->due[s] = INT64_MAX;
        return;
    }
    /* due again at its earliest ready warp, at the earliest the next cycle
     * (four running minima, so the loop is not one chain of compares) */
    const int64_t *r = w->ready;
    int64_t m0 = INT64_MAX, m1 = INT64_MAX, m2 = INT64_MAX, m3 = INT64_MAX;
    int32_t i = 0, n = w->n;
    for (; i + 4 <= n; i += 4) {
        m0 = r[i] < m0 ? r[i] : m0;
        m1 = r[i + 1] < m1 ? r[i + 1] : m1;
        m2 = r[i + 2] < m2 ? r[i + 2] : m2;
        m3 = r[i + 3] < m3 ? r[i + 3] : m3;
    }
    for (; i < n; i++) m0 = r[i] < m0 ? r[i] : m0;
    m0 = m1 < m0 ? m1 : m0;
    m2 = m3 < m2 ? m3 : m2;
    int64_t d = m2 < m0 ? m2 : m0;
    if (d <= c) d = c + 1;
    if (E->lq_n && d < EW_BAR) {
        int64_t f = lq_free(E, s);
        if (f > d) d = f;
    }
    /* it was due now, so it is in no slot: straight into its new one */
    E->due[s] = d;
    if (d >= EW_BAR) return;   /* every warp waits for a fetch (fe_fetch wakes it) or at a
                                  barrier (bar_release wakes it) */
    if (in_wheel(E, d)) {
        size_t slot = (size_t)(d & (EW_WHEEL - 1));
        E->wheel[slot * (size_t)E->words + (size_t)(s >> 6)] |= 1ULL << (s & 63);
        E->summary[slot >> 6] |= 1ULL << (slot & 63);
    } else if (heap_push(E, d, s) != 0) {
        st->failed = true;
    }
}

/* ---- the policy hooks ------------------------------------------------------- */

/* Non-QoS kernels of a quota run: the IPC they reached while a QoS kernel
 * ran, over the cycles [first QoS start, last QoS end) they ran in (the
 * paper measures sharers that all run the whole time, §4.1). */
static void quota_record(ew_state *E) {
    const quota_state *q = &E->q;
    for (int32_t k = 0; k < q->nk; k++) {
        const quota_kernel *K = &q->k[k];
        if (K->qos || K->first_cycle < 0 || q->win_start < 0) continue;
        int64_t from = K->first_cycle > q->win_start ? K->first_cycle : q->win_start;
        int64_t to = q->win_end >= 0 ? q->win_end : E->cur + 1;
        if (K->end_cycle >= 0 && K->end_cycle < to) to = K->end_cycle;
        size_t first = (size_t)E->qfirst[k];
        if (to > from && first < E->t->kernels.n)
            E->t->kernels.v[first].ipc_shared = (double)K->shared_instr / (double)(to - from);
    }
}

static void warp_fini(void *self) {
    ew_state *E = self;
    if (E->t && E->l1_sets > 0 && E->l1_hits + E->l1_misses > 0) {
        /* the L1's hit rate over the run's load sectors (most-room Appendix A
         * measured 75-95% for its L1-cache-dependent kernel alone) */
        char v[32];
        snprintf(v, sizeof v, "%.4f", (double)E->l1_hits / (double)(E->l1_hits + E->l1_misses));
        trace_set_meta(E->t, "l1_hit_rate", v);
    }
    if (E->t && E->l2_sets > 0) {
        /* the L2's hit rate over the load sectors that reached it, and the
         * dirty sectors it wrote back */
        char v[32];
        if (E->l2_hits + E->l2_misses > 0) {
            snprintf(v, sizeof v, "%.4f",
                     (double)E->l2_hits / (double)(E->l2_hits + E->l2_misses));
            trace_set_meta(E->t, "l2_hit_rate", v);
        }
        snprintf(v, sizeof v, "%lld", (long long)E->l2_writebacks);
        trace_set_meta(E->t, "l2_writebacks", v);
    }
    if (E->t && E->uvm_faults > 0) {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long)E->uvm_faults);
        trace_set_meta(E->t, "uvm_faults", v);
    }
    if (E->t && E->ntouched) epoch_flush(E);
    if (E->quota) {
        if (E->t) quota_record(E);
        quota_free(&E->q);
    }
    for (int32_t i = 0; E->chq && i < E->nsubs; i++) free(E->chq[i].h);
    free(E->chq);
    free(E->owe);
    free(E->owed);
    free(E->wqk);
    free(E->qk);
    free(E->qfirst);
    free(E->climb_issued);
    free(E->sm_rank);
    free(E->port_free);
    free(E->tba_iw);
    free(E->tba_held);
    free(E->tba_mean);
    free(E->tba_k);
    free(E->tba_moves);
    free(E->tba_swap);
    for (size_t k = 0; E->saved_head && k < E->nk; k++)
        for (ew_saved *v = E->saved_head[k], *nx; v; v = nx) {
            nx = v->next;
            free(v);
        }
    free(E->saved_head);
    free(E->saved_tail);
    free(E->qpoll);
    free(E->sm_live);
    for (size_t k = 0; k < E->nk; k++) {
        free(E->ks[k].code);
        free(E->ks[k].ext);
        free(E->ks[k].ws);
        free(E->ks[k].dep);
        free(E->ks[k].bar);
    }
    free(E->sb);
    free(E->l1_way);
    free(E->l1_next);
    free(E->lq_free);
    free(E->l1_clock);
    free(E->mq_port);
    free(E->mq_dram);
    free(E->l2_tag);
    free(E->l2_lru);
    free(E->l2_mask);
    free(E->uvm_sm_free);
    free(E->uvm_key);
    free(E->uvm_val);
    free(E->ks);
    free(E->subs);
    free(E->due);
    free(E->now);
    free(E->wheel);
    free(E->heap);
    free(E->rr);
    free(E->blocks);
    free(E->touched);
    free(E->arena);
    for (size_t i = 0; E->wp && E->wp->fini && i < E->pol_n; i++)
        E->wp->fini(E->pol + i * E->pol_size);
    free(E->pol);
    free(E->fe_used);
    free(E->fe_want);
    free(E->fe_last);
    free(E->fe_sub);
    free(E->fe_pos);
    free(E->fe_at);
    free(E->fe_nb);
    free(E->fe_sms);
    free(E->port_next);
    free(E->mq_next);
    free(E->mq_head);
    free(E->mq_tail);
    free(E->mq_warps);
    free(E->mq_subs);
    free(E->mq_smnext);
    free(E->mq_end);
    free(E->fp_next);
}

static int warp_init(void *self, sim_state *st) {
    ew_state *E = self;
    const sim_device *d = st->dev;
    const sim_config *cfg = st->cfg;
    E->wp = warp_get(cfg->policy.warp);
    if (!E->wp) E->wp = warp_get(0);
    E->t = st->t;
    E->clock = d->clock_hz;
    E->nsub = d->schedulers_per_sm;
    E->nsubs = d->sms * E->nsub;
    E->cur = -1;
    E->armed = -1;
    E->pending = INT64_MAX;
    E->limit = cfg->policy.warp_issue_limit == 0 ? SIM_WARP_ISSUE_LIMIT
             : cfg->policy.warp_issue_limit < 0 ? 0 : cfg->policy.warp_issue_limit;
    E->epoch_len = cfg->policy.warp_epoch > 0 ? cfg->policy.warp_epoch : SIM_WARP_EPOCH;
    if (d->mem_bandwidth > 0) {
        double iv = (double)(1 << EW_FRAC) / d->mem_bandwidth;
        E->mem_interval = iv < 1 ? 1 : (int64_t)(iv + 0.5);
    }
    if (d->sm_mem_bandwidth > 0) {
        double iv = (double)(1 << EW_FRAC) / d->sm_mem_bandwidth;
        E->port_interval = iv < 1 ? 1 : (int64_t)(iv + 0.5);
        E->port_next = calloc((size_t)d->sms, sizeof *E->port_next);
        if (!E->port_next) return -1;
    }
    if (d->dram_sectors > 0) {
        E->mx = true;
        E->dram_iv = (int64_t)((double)(1 << EW_FRAC) / d->dram_sectors + 0.5);
        E->port_iv = (int64_t)((double)(1 << EW_FRAC) / d->sm_port_sectors + 0.5);
        if (E->dram_iv < 1) E->dram_iv = 1;
        if (E->port_iv < 1) E->port_iv = 1;
        E->mq_cap = d->sm_mem_queue / d->schedulers_per_sm;
        size_t nsubs = (size_t)d->sms * (size_t)d->schedulers_per_sm;
        E->mq_next = calloc(nsubs, sizeof *E->mq_next);
        E->mq_warps = calloc(nsubs, sizeof *E->mq_warps);
        E->mq_subs = calloc((size_t)d->sms, sizeof *E->mq_subs);
        if (!E->mq_next || !E->mq_warps || !E->mq_subs) return -1;
        if (d->dram_share == 1) {
            E->mq_smnext = calloc((size_t)d->sms, sizeof *E->mq_smnext);
            if (!E->mq_smnext) return -1;
        }
        if (d->mem_admission == 1) {
            E->mq_arrival = true;
            E->mq_head = malloc(nsubs * sizeof *E->mq_head);
            E->mq_tail = calloc(nsubs, sizeof *E->mq_tail);
            if (!E->mq_head || !E->mq_tail) return -1;
            for (size_t i = 0; i < nsubs; i++) E->mq_head[i] = 1;
        }
    }
    if (E->mx && d->l1_smem_kb > 0) {
        /* the L1 is what the carveout leaves of L1 + shared memory: the
         * shared memory of the run's kernel that needs the most on one SM
         * (its blocks per SM times its smem per block); on a device with
         * carveouts (H100-C1, carveout.h) the largest carveout the run's
         * kernels ask for, which is what their SMs are configured to */
        int64_t smem = 0;
        for (size_t i = 0; i < cfg->nops; i++) {
            const sim_op *o = &cfg->ops[i];
            if (o->kind != SIM_OP_KERNEL) continue;
            int64_t need;
            if (d->nsmem_carveouts > 0) {
                need = (int64_t)sms_need(d, o->threads, o->regs, o->smem).carve_kb * CARVE_KB;
            } else {
                if (o->smem <= 0) continue;
                int64_t nb = o->blocks < d->blocks_per_sm ? o->blocks : d->blocks_per_sm;
                need = o->smem * nb;
                if (need > d->smem_per_sm) need = d->smem_per_sm;
            }
            if (need > smem) smem = need;
        }
        int64_t l1 = (int64_t)d->l1_smem_kb * 1024 - smem;
        int64_t lines = l1 > 0 ? l1 / 128 : 0;
        E->l1_assoc = d->l1_assoc;
        E->l1_sets = (int32_t)(lines / d->l1_assoc);
        E->l1_lat = d->latency_l1;
        if (d->l1_sectors > 0) {
            E->l1_iv = (int64_t)((double)(1 << EW_FRAC) / d->l1_sectors + 0.5);
            if (E->l1_iv < 1) E->l1_iv = 1;
            E->l1_next = calloc((size_t)d->sms, sizeof *E->l1_next);
            if (!E->l1_next) return -1;
            if (d->ldst_queue > 0) {
                E->lq_n = d->ldst_queue;
                E->lq_free = calloc((size_t)E->nsubs * (size_t)E->lq_n, sizeof *E->lq_free);
                if (!E->lq_free) return -1;
            }
        }
        if (E->l1_sets > 0) {
            size_t n = (size_t)d->sms * (size_t)E->l1_sets * (size_t)E->l1_assoc;
            E->l1_way = calloc(n, sizeof *E->l1_way);
            E->l1_clock = calloc((size_t)d->sms, sizeof *E->l1_clock);
            if (!E->l1_way || !E->l1_clock) return -1;
        }
    }
    if (E->mx && d->l2_kb > 0) {
        size_t nsubs = (size_t)d->sms * (size_t)d->schedulers_per_sm;
        E->mq_port = calloc(nsubs, sizeof *E->mq_port);
        E->mq_dram = calloc(nsubs, sizeof *E->mq_dram);
        if (!E->mq_port || !E->mq_dram) return -1;
        int64_t lines = (int64_t)d->l2_kb * 1024 / 128;
        E->l2_assoc = d->l2_assoc;
        E->l2_sets = (int32_t)(lines / d->l2_assoc);
        E->l2_lat = d->latency_l2;
        size_t n = (size_t)E->l2_sets * (size_t)E->l2_assoc;
        E->l2_tag = calloc(n, sizeof *E->l2_tag);
        E->l2_lru = calloc(n, sizeof *E->l2_lru);
        E->l2_mask = calloc(n, sizeof *E->l2_mask);
        if (!E->l2_tag || !E->l2_lru || !E->l2_mask) return -1;
    }
    if (E->mx && d->uvm_page_kb > 0) {
        E->uvm_page = (int64_t)d->uvm_page_kb * 1024;
        E->uvm_copy = (int64_t)((double)E->uvm_page / d->copy_bandwidth * (double)d->clock_hz + 0.5);
        if (E->uvm_copy < 1) E->uvm_copy = 1;
        E->uvm_lat = d->uvm_fault_latency;
        E->uvm_slots = d->sm_faults > 0 ? d->sm_faults : 1024;   /* 1024: no limit */
        E->uvm_sm_free = calloc((size_t)d->sms * (size_t)E->uvm_slots, sizeof *E->uvm_sm_free);
        if (!E->uvm_sm_free) return -1;
    }
    if (d->fp32_rate > 0) {
        E->fp_iv = (int64_t)((double)(1 << EW_FRAC) / d->fp32_rate + 0.5);
        E->fp_next = calloc((size_t)d->sms * (size_t)d->schedulers_per_sm, sizeof *E->fp_next);
        if (!E->fp_next) return -1;
    }
    E->gate = E->mx || E->fp_iv > 0;
    E->warp_size = d->warp_size;
    trace_set_meta(st->t, "execution", "warp");
    trace_set_meta(st->t, "warp", E->wp->name);

    size_t cap = (size_t)d->warps_per_sm, ns = (size_t)E->nsubs;
    E->words = (int32_t)((ns + 63) / 64);
    E->subs = calloc(ns, sizeof *E->subs);
    E->due = malloc(ns * sizeof *E->due);
    E->now = calloc((size_t)E->words, sizeof *E->now);
    E->wheel = calloc((size_t)EW_WHEEL * (size_t)E->words, sizeof *E->wheel);
    E->rr = calloc((size_t)d->sms, sizeof *E->rr);
    size_t nb = (size_t)d->sms * (size_t)d->blocks_per_sm;
    E->blocks = calloc(nb, sizeof *E->blocks);
    E->nblocks = (int32_t)nb;
    E->nk = st->nkernels;
    E->ks = calloc(E->nk ? E->nk : 1, sizeof *E->ks);
    E->touched = malloc((E->nk ? E->nk : 1) * sizeof *E->touched);
    E->fe_warps = d->fetch_warps;
    E->fe_ibuf = d->ibuffer;
    bool fe = E->fe_warps > 0;
    if (fe) {
        size_t sms = (size_t)d->sms;
        E->sm_words = (int32_t)((sms + 63) / 64);
        E->fe_used = calloc(sms, sizeof *E->fe_used);
        E->fe_want = calloc(sms, sizeof *E->fe_want);
        E->fe_last = calloc(sms, sizeof *E->fe_last);
        E->fe_sub = calloc(sms * EW_SLOTS, sizeof *E->fe_sub);
        E->fe_pos = calloc(sms * EW_SLOTS, sizeof *E->fe_pos);
        E->fe_at = calloc(sms * EW_SLOTS, sizeof *E->fe_at);
        E->fe_nb = calloc(sms * EW_SLOTS, sizeof *E->fe_nb);
        E->fe_sms = calloc((size_t)E->sm_words, sizeof *E->fe_sms);
        if (!E->fe_used || !E->fe_want || !E->fe_last || !E->fe_sub || !E->fe_pos ||
            !E->fe_at || !E->fe_nb ||
            !E->fe_sms)
            return -1;
        /* [GS] m_last_warp_fetched starts at 0: the first fetch tries slot 1 */
    }
    /* per sub-core, back to back: ready, info (and the front end's done,
     * ibuf, slot) */
    size_t per = cap * (sizeof(int64_t) + sizeof(warp_info));
    if (fe) per += cap * (sizeof(int64_t) + 2 * sizeof(int32_t));
    E->arena = malloc(ns * per);
    /* the warp policy's state of each sub-core, zeroed, then its init
     * (warp.h) */
    E->pol_size = E->wp->state_size ? E->wp->state_size : 1;
    E->pol = calloc(ns, E->pol_size);
    E->pick = E->wp->pick;
    E->on_issue = E->wp->on_issue;
    if (!E->subs || !E->due || !E->now || !E->wheel || !E->rr || !E->blocks || !E->ks ||
        !E->touched || !E->arena || !E->pol)
        return -1;
    for (; E->pol_n < ns; E->pol_n++)
        if (E->wp->init && E->wp->init(E->pol + E->pol_n * E->pol_size, (int32_t)cap) != 0)
            return -1;
    char *a = E->arena;
    for (size_t i = 0; i < ns; i++) {
        warp_sub *w = &E->subs[i];
        w->owe_due = 0;
        w->pol = E->pol + i * E->pol_size;
        w->ready = (int64_t *)(void *)a; a += cap * sizeof(int64_t);
        w->info = (warp_info *)(void *)a; a += cap * sizeof(warp_info);
        if (fe) {
            w->fe_done = (int64_t *)(void *)a; a += cap * sizeof(int64_t);
            w->fe_ibuf = (int32_t *)(void *)a; a += cap * sizeof(int32_t);
            w->fe_slot = (int32_t *)(void *)a; a += cap * sizeof(int32_t);
        }
        E->due[i] = INT64_MAX;
    }
    for (size_t b = 0; b < nb; b++) E->blocks[b].next_free = b + 1 < nb ? (int32_t)b + 1 : -1;
    E->free_block = 0;
    if (E->wp->quota) {
        E->owe = calloc(ns * cap, sizeof *E->owe);
        E->owed_words = (int32_t)((cap + 63) / 64);
        E->owed = calloc(ns * (size_t)E->owed_words, sizeof *E->owed);
        E->wqk = calloc(ns * cap, sizeof *E->wqk);
        E->qk = malloc((E->nk ? E->nk : 1) * sizeof *E->qk);
        E->qfirst = malloc((E->nk ? E->nk : 1) * sizeof *E->qfirst);
        E->qpoll = calloc(ns, sizeof *E->qpoll);
        E->sm_live = calloc((size_t)d->sms, sizeof *E->sm_live);
        if (!E->owe || !E->owed || !E->wqk || !E->qk || !E->qfirst || !E->qpoll || !E->sm_live)
            return -1;
        /* ISCA'17 §4.1 re-executes each program over the simulated window,
         * and the QoS manager's state (history, Rollover's leftover) is
         * the kernel's across its runs: a kernel launched on the same
         * stream under the same name and goal as an earlier one is that
         * kernel again (quota.h). The manager's kernels are numbered
         * densely: its per-SM scans (quota_held, the refill rules) then
         * cover the pair's 2 kernels, not the window's 128 runs. */
        int32_t nq = 0;
        for (size_t k = 0; k < E->nk; k++) {
            const sim_op *o = &cfg->ops[st->ks[k].op];
            E->qk[k] = -1;
            for (size_t j = 0; j < k && o->name; j++) {
                const sim_op *p = &cfg->ops[st->ks[j].op];
                if (p->name && !strcmp(p->name, o->name) && p->stream == o->stream &&
                    p->qos_goal == o->qos_goal) {
                    E->qk[k] = E->qk[j];
                    break;
                }
            }
            if (E->qk[k] < 0) {
                E->qfirst[nq] = (int32_t)k;
                E->qk[k] = nq++;
            }
        }
        /* the QoS manager (ISCA'17 §3.3): one counter per kernel and SM */
        int64_t T = cfg->policy.quota_epoch > 0 ? cfg->policy.quota_epoch : SIM_QUOTA_EPOCH;
        E->sch = *E->wp->quota;
        if (cfg->policy.has_quota_history) E->sch.history = cfg->policy.quota_history;
        if (quota_init(&E->q, &E->sch, nq, E->nsubs / E->nsub, T) != 0) {
            quota_free(&E->q);
            return -1;
        }
        E->quota = true;
        for (size_t i = 0; i < ns; i++) {
            E->subs[i].quota_k = E->wqk + i * cap;
            E->subs[i].quota_cnt = E->q.cnt + (i / (size_t)E->nsub) * (size_t)nq;
            E->subs[i].quota_owe = E->owe + i * cap;
        }
    }

    if (st->placement->qos_epoch && st->ipc_isolated) {
        /* the run-time Spart moves SMs at the QoS manager's epochs (§4.1) */
        E->climb_len = cfg->policy.quota_epoch > 0 ? cfg->policy.quota_epoch : SIM_QUOTA_EPOCH;
        E->climb_next = E->climb_len;
        E->climb_issued = malloc((E->nk ? E->nk : 1) * sizeof *E->climb_issued);
        E->sm_rank = malloc((size_t)d->sms * sizeof *E->sm_rank);
        if (!E->climb_issued || !E->sm_rank) return -1;
        for (int32_t r = 0; r < st->sms.n; r++) E->sm_rank[st->sms.order[r]] = r;
    }
    /* ISCA'17 §3.6's run-time TB adjustment (tb_adjust.h) at the QoS
     * manager's epochs: idle warps sampled 100 times an epoch (§4.1) */
    if (E->quota && cfg->policy.tb_adjust && st->share_adj) {
        size_t cells = (size_t)d->sms * (E->nk ? E->nk : 1);
        E->tba_step = E->q.T / 100 > 0 ? E->q.T / 100 : 1;
        E->tba_iw = calloc(cells, sizeof *E->tba_iw);
        E->tba_mean = malloc(cells * sizeof *E->tba_mean);
        E->tba_k = calloc(E->nk ? E->nk : 1, sizeof *E->tba_k);
        E->tba_moves = malloc(cells * sizeof *E->tba_moves);
        E->tba_swap = malloc((size_t)d->sms * sizeof *E->tba_swap);
        E->tba_cap = d->warps_per_sm;
        E->tba_held = calloc((size_t)E->nsubs * (size_t)d->warps_per_sm, sizeof *E->tba_held);
        if (!E->tba_iw || !E->tba_mean || !E->tba_k || !E->tba_moves || !E->tba_swap ||
            !E->tba_held)
            return -1;
    }
    /* preemption (policy.sm_preempt) for either of them */
    if (cfg->policy.has_sm_preempt && (E->sm_rank || E->tba_iw)) {
        E->preempt_cycles = cycle_of_ns(E, cfg->policy.sm_preempt);
        E->port_free = calloc((size_t)d->sms, sizeof *E->port_free);
        E->saved_head = calloc(E->nk ? E->nk : 1, sizeof *E->saved_head);
        E->saved_tail = calloc(E->nk ? E->nk : 1, sizeof *E->saved_tail);
        if (!E->port_free || !E->saved_head || !E->saved_tail) return -1;
    }
    for (size_t k = 0; k < E->nk; k++) {
        ew_kernel *K = &E->ks[k];
        const sim_op *o = &cfg->ops[st->ks[k].op];
        K->blocks = st->ks[k].blocks;
        K->first_cycle = -1;
        K->budget = o->budget > 0 ? o->budget : 1;
        K->warps = st->ks[k].need.warps;
        K->lanes_last = o->threads % d->warp_size;
        if (E->quota && E->qfirst[E->qk[k]] == (int32_t)k) {
            /* IPC_goal in thread instructions per cycle (quota.h: units) */
            double lanes = K->warps > 0 ? (double)o->threads / K->warps : d->warp_size;
            double iso = st->ipc_isolated ? st->ipc_isolated[k] : 0;
            quota_kernel_set(&E->q, E->qk[k], o->qos_goal > 0 ? o->qos_goal * iso * lanes : 0,
                             lanes);
        }
        const sim_program *p = o->program;
        if (!p) continue;
        int64_t len = 0;
        for (size_t j = 0; j < p->nbody; j++) len += p->body[j].count;
        K->len = (int32_t)len;
        K->mem_span = (int64_t)(p->mem_requests > 1 ? p->mem_requests - 1 : 0) * E->mem_interval;
        K->port_span = (int64_t)(p->mem_requests > 1 ? p->mem_requests - 1 : 0) * E->port_interval;
        K->code = malloc((size_t)len * sizeof *K->code);
        if (!K->code) return -1;
        if (E->gate) {
            K->ext = malloc((size_t)len * sizeof *K->ext);
            if (!K->ext) return -1;
        }
        if (E->l1_sets > 0 || E->l2_sets > 0 || E->uvm_page > 0) {
            K->ws = calloc((size_t)len, sizeof *K->ws);
            if (!K->ws) return -1;
        }
        if (p->dep) {
            K->dep = malloc((size_t)len * sizeof *K->dep);
            if (!K->dep) return -1;
            if (!E->sb) {
                E->sb_cap = d->warps_per_sm;
                E->sb = malloc((size_t)E->nsubs * (size_t)E->sb_cap * sizeof *E->sb);
                if (!E->sb) return -1;
            }
            if (E->wp->quota && !E->chq) {
                E->chq = calloc((size_t)E->nsubs, sizeof *E->chq);
                if (!E->chq) return -1;
            }
        }
        for (size_t j = 0; j < p->nbody && !K->bar; j++) {
            if (p->body[j].iclass != SIM_ICLASS_BARRIER) continue;
            K->bar = calloc((size_t)len, sizeof *K->bar);
            if (!K->bar) return -1;
        }
        int64_t at = 0;
        for (size_t j = 0; j < p->nbody; j++) {
            const sim_instr *in = &p->body[j];
            const sim_access acc = p->access ? p->access[j] : (sim_access){ 0, 0, 0, 0, 0, 0 };
            int32_t c = in->iclass;
            /* a store's warp goes on after issue: the ALU's latency (memory system on) */
            int32_t lat = E->mx && c == SIM_ICLASS_MEM && acc.store
                              ? class_latency(d, p, SIM_ICLASS_ALU) : class_latency(d, p, c);
            uint32_t code = (uint32_t)lat << 1 | (c == SIM_ICLASS_MEM);
            uint16_t x = 0;
            if (E->gate) {
                /* an op without an access pattern: the program's
                 * mem_requests 128-byte requests of 4 sectors each */
                int32_t n = acc.sectors > 0 ? acc.sectors
                                            : 4 * (p->mem_requests > 1 ? p->mem_requests : 1);
                if (c == SIM_ICLASS_MEM)
                    x = (uint16_t)((uint32_t)n << 4 | (acc.store ? EW_X_STORE : 0) |
                                   (acc.managed && E->uvm_page ? EW_X_MANAGED : 0));
                if (c == SIM_ICLASS_ALU && acc.fp32 && E->fp_iv) x |= EW_X_FP32;
                if (c == SIM_ICLASS_SHARED && E->lq_n) x |= EW_X_LDST;
            }
            K->uses_mem |= c == SIM_ICLASS_MEM;
            for (int32_t n = 0; n < in->count; n++) {
                if (K->ws && c == SIM_ICLASS_MEM) {
                    /* each (kernel, body entry) its own address space */
                    int64_t sec = acc.footprint > 0 ? (acc.footprint + 31) / 32 : 0;
                    K->ws[at] = (ew_ws){ .base = (uint64_t)(k + 1) << 52 | (uint64_t)j << 44,
                                         .region = sec, .off = n, .count = in->count,
                                         .scope = acc.scope };
                }
                if (K->ext) K->ext[at] = x;
                if (p->dep) {   /* K->dep made for it above */
                    uint16_t dv = 0;
                    for (int32_t q = p->dep[j].n - 1; q >= 0; q--)
                        dv = (uint16_t)(dv << 5 | (uint32_t)p->dep[j].on[q]);
                    K->dep[at] = dv;
                }
                if (K->bar) K->bar[at] = c == SIM_ICLASS_BARRIER;
                K->code[at++] = code;
            }
        }
        /* persistent threads: the op's blocks' work, split evenly (QAWS §V-A) */
        int64_t total = o->blocks * p->repeat;
        K->per_block = total / K->blocks;
        K->extra = total % K->blocks;
    }
    return 0;
}

/* Warp wi of block b joins SM B->sm at cycle c, dealt to the next sub-core
 * (QAWS §II: round-robin); it may issue from cycle `from` (>= c). */
static void join_warp(ew_state *E, sim_state *st, int32_t b, warp_info wi, int64_t c,
                      int64_t from) {
    int32_t sm = E->blocks[b].sm, k = wi.kernel;
    const ew_kernel *K = &E->ks[k];
    int32_t j = E->rr[sm];
    E->rr[sm] = j + 1 == E->nsub ? 0 : j + 1;
    int32_t s = sm * E->nsub + j;
    warp_sub *w = &E->subs[s];
    int32_t n = w->n++;
    if (n == 0 && E->sm_live) E->sm_live[sm]++;
    w->ready[n] = from;
    if (w->quota_owe) {
        w->quota_owe[n] = 0;
        owed_of(E, w)[n >> 6] &= ~(1ULL << (n & 63));
        w->quota_k[n] = E->qk[k];
    }
    /* every warp's, with or without a scoreboard of its own: its place may
     * be read as any warp's (preempt_block), and malloc's memory is not
     * cleared (before 2026-12-03 a non-scoreboarded warp's was left as
     * found, and a preempted block of it could wait on garbage) */
    if (E->sb) E->sb[(size_t)s * (size_t)E->sb_cap + (size_t)n] = (ew_sb){ .last = from };
    if (E->tba_held) E->tba_held[(size_t)s * (size_t)E->tba_cap + (size_t)n] = 0;
    w->info[n] = wi;
    if (E->quota) quota_join(&E->q, s / E->nsub, E->qk[k], 1, c);
    if (E->mx && K->uses_mem && E->mq_warps[s]++ == 0 && E->mq_subs[sm]++ == 0) E->nact++;
    if (w->fe_ibuf) {
        /* the lowest free warp slot (GPGPU-Sim's find_available_hwtid
         * takes the first free range a whole block fits in; the two
         * differ only when blocks of different sizes leave holes);
         * the warp's buffer starts empty */
        if (E->fe_used[sm] == ~0ULL) {   /* cannot happen: warps_per_sm <= 64 */
            st->failed = true;
            return;
        }
        int32_t slot = __builtin_ctzll(~E->fe_used[sm]);
        E->fe_used[sm] |= 1ULL << slot;
        E->fe_sub[sm * EW_SLOTS + slot] = s;
        E->fe_pos[sm * EW_SLOTS + slot] = n;
        w->fe_slot[n] = slot;
        w->fe_ibuf[n] = 0;
        w->fe_done[n] = from;
        fe_want(E, w, n, sm);
        return;
    }
    if (from < E->due[s] && set_due(E, s, from) != 0) st->failed = true;
}

static int64_t warp_block_end(void *self, sim_state *st, int32_t k, int64_t index, int32_t sm,
                              int64_t start) {
    ew_state *E = self;
    ew_kernel *K = &E->ks[k];
    const sim_kstate *SK = &st->ks[k];
    if (!K->code) {
        int64_t dur = SK->nblock_time == 1 ? SK->block_time[0]
                                           : SK->block_time[(size_t)index % SK->nblock_time];
        return start + dur;
    }
    int64_t c = cycle_of_ns(E, start);
    if (c <= E->cur) c = E->cur + 1;
    if (K->first_cycle < 0) K->first_cycle = c;
    int32_t b = E->free_block;
    if (b < 0) {              /* cannot happen: blocks_per_sm bounds residency */
        st->failed = true;
        return start;
    }
    E->free_block = E->blocks[b].next_free;
    ew_block *B = &E->blocks[b];
    B->kernel = k;
    B->sm = sm;
    B->warps_left = SK->need.warps;
    B->at_bar = 0;
    B->end = c;
    /* ee.c adds the block's record right after this call */
    B->rec = (int64_t)st->blocks_flushed + (int64_t)st->t->blocks.n;
    B->wid0 = E->next_wid;
    B->index = index;
    int64_t iters = K->per_block + (index < K->extra);
    B->iters0 = iters;
    if (iters == 0) {         /* more persistent blocks than work: nothing to run */
        B->warps_left = 0;
        st->failed = true;
        return start;
    }
    for (int32_t i = 0; i < SK->need.warps; i++)
        join_warp(E, st, b, (warp_info){ .kernel = k, .budget = K->budget, .pc = 0, .block = b,
                                         .iters = iters, .wid = E->next_wid++ }, c, c);
    /* a joining kernel's share may have raised a counter of the SM */
    if (E->quota && E->q.raised[sm]) qpoll_raised(E, st, sm, -1, c);
    wake_at(E, st, c);
    return SIM_END_LATER;
}

/* The cycle's event only arms it: the cycle runs at the end of its instant
 * (instant_end), after the blocks placed in that instant have joined. */
static void warp_on_event(void *self, sim_state *st, const sim_event *ev) {
    ew_state *E = self;
    (void)st;
    E->armed = ev->b;
    E->pending = INT64_MAX;
    E->pending_id = 0;
}

/* A quota sub-core's turn reads its warps' arrays front to back: fetched
 * into the cache ahead of it (a full GPU's warps do not fit in L1). */
static inline void prefetch_subcore(const warp_sub *w) {
    __builtin_prefetch(w->ready);
    __builtin_prefetch(w->ready + 8);
    __builtin_prefetch(w->quota_owe);
    if (w->fe_done) {
        __builtin_prefetch(w->fe_done);
        __builtin_prefetch(w->fe_done + 8);
    }
    __builtin_prefetch(w->info);
    __builtin_prefetch(w->info + 2);
    __builtin_prefetch(w->info + 4);
    __builtin_prefetch(w->info + 6);
}

/* A block's share of an SM's context, in cycles to save or restore it:
 * policy.sm_preempt is a whole SM's; a block holds its threads' part. */
static int64_t context_cycles(const ew_state *E, const sim_state *st, int32_t k) {
    return (E->preempt_cycles * st->ks[k].need.threads + st->dev->threads_per_sm - 1) /
           st->dev->threads_per_sm;
}

/* Preempt block b at cycle c (its SM goes to another partition): each of
 * its warps leaves its sub-core once its instructions in flight have
 * completed (their results, its stores out of the memory queue), keeping
 * where it was; then its context goes out through the SM's port after
 * what the SM saves before it (*port: the cycle the port is free), which
 * takes the block's share of sm_preempt. When that is done the block's
 * record ends and ee.c gets the SM's resources back (EV_BLOCK_PREEMPTED).
 * The block resumes through warp_block_resume. */
static void preempt_block(ew_state *E, sim_state *st, int32_t b, int64_t c, int64_t *port) {
    ew_block *B = &E->blocks[b];
    int32_t sm = B->sm, k = B->kernel;
    const ew_kernel *K = &E->ks[k];
    ew_saved *v = malloc(sizeof *v + (size_t)B->warps_left * sizeof v->w[0]);
    if (!v) {
        st->failed = true;
        return;
    }
    *v = (ew_saved){ .index = B->index, .wid0 = B->wid0, .iters0 = B->iters0 };
    int64_t done = c;
    for (int32_t s = sm * E->nsub; s < (sm + 1) * E->nsub; s++) {
        warp_sub *w = &E->subs[s];
        for (int32_t p = w->n - 1; p >= 0; p--) {
            const warp_info *wi = &w->info[p];
            if (wi->block != b) continue;
            int64_t r = w->fe_ibuf ? w->fe_done[p] : w->ready[p];
            if (r == EW_NEVER || r < c) r = c;
            if (K->dep) {
                const ew_sb *sb = &E->sb[(size_t)s * (size_t)E->sb_cap + (size_t)p];
                if (sb->last > r) r = sb->last;
            }
            if (E->quota) {
                if (w->quota_owe[p]) quota_charge(&E->q, sm, E->qk[k], w->quota_owe[p], c);
                quota_leave(&E->q, sm, E->qk[k], c);
            }
            if (E->mx && K->uses_mem) {
                int64_t qe = (E->mq_next[s] + (1 << EW_FRAC) - 1) >> EW_FRAC;
                if (qe > r) r = qe;
                mq_leave(E, st, s, r);
            }
            if (w->fe_ibuf) {
                uint64_t bit = 1ULL << w->fe_slot[p];
                E->fe_used[sm] &= ~bit;
                if (E->fe_want[sm] & bit) {
                    E->fe_want[sm] &= ~bit;
                    if (!E->fe_want[sm]) {
                        E->fe_sms[sm >> 6] &= ~(1ULL << (sm & 63));
                        E->fe_nsms--;
                    }
                }
            }
            v->w[v->n++] = (ew_saved_warp){ .pc = wi->pc, .iters = wi->iters, .wid = wi->wid };
            if (r > done) done = r;
            remove_warp(E, w, p);
        }
    }
    if (*port > done) done = *port;
    done += context_cycles(E, st, k);
    *port = done;
    v->saved = done;
    int64_t t = ns_of_cycle(E, done);
    size_t at = (size_t)(B->rec - (int64_t)st->blocks_flushed);
    if (at < st->t->blocks.n) st->t->blocks.v[at].end = t;
    if (sim_engine_push(&st->eng, t, EV_BLOCK_PREEMPTED, k, sm) != 0) st->failed = true;
    B->warps_left = 0;
    B->next_free = E->free_block;
    E->free_block = b;
    /* the saved warps oldest first, as they were dealt */
    for (int32_t i = 1; i < v->n; i++)
        for (int32_t j = i; j > 0 && v->w[j - 1].wid > v->w[j].wid; j--) {
            ew_saved_warp x = v->w[j];
            v->w[j] = v->w[j - 1];
            v->w[j - 1] = x;
        }
    if (E->saved_tail[k]) E->saved_tail[k]->next = v;
    else E->saved_head[k] = v;
    E->saved_tail[k] = v;
}

/* ee.c resumes one of kernel k's saved blocks on sm at `start`: the first
 * preempted of those whose context is out by then (blocks on different
 * SMs save through different ports, so they need not finish in the order
 * they were preempted; ee.c counts a block saved at its EV_BLOCK_PREEMPTED).
 * Its warps join as a new block's do, each where it left off, and issue
 * once its context is restored (its share of sm_preempt later). */
static int64_t warp_block_resume(void *self, sim_state *st, int32_t k, int32_t sm, int64_t start,
                                 int64_t *index) {
    ew_state *E = self;
    int64_t c = cycle_of_ns(E, start);
    if (c <= E->cur) c = E->cur + 1;
    ew_saved *v = E->saved_head ? E->saved_head[k] : NULL, *prev = NULL;
    while (v && ns_of_cycle(E, v->saved) > start) {
        prev = v;
        v = v->next;
    }
    int32_t b = E->free_block;
    if (!v || b < 0) {        /* cannot happen: ee.c resumes only what was saved */
        st->failed = true;
        return start;
    }
    if (prev) prev->next = v->next;
    else E->saved_head[k] = v->next;
    if (E->saved_tail[k] == v) E->saved_tail[k] = prev;
    E->free_block = E->blocks[b].next_free;
    ew_block *B = &E->blocks[b];
    *B = (ew_block){ .kernel = k, .sm = sm, .warps_left = v->n, .end = c, .next_free = -1,
                     .rec = (int64_t)st->blocks_flushed + (int64_t)st->t->blocks.n,
                     .wid0 = v->wid0, .index = v->index, .iters0 = v->iters0 };
    for (int32_t i = 0; i < v->n; i++)
        join_warp(E, st, b, (warp_info){ .kernel = k, .budget = E->ks[k].budget, .pc = v->w[i].pc,
                                         .block = b, .iters = v->w[i].iters, .wid = v->w[i].wid },
                  c, c + context_cycles(E, st, k));
    *index = v->index;
    free(v);
    if (E->quota && E->q.raised[sm]) qpoll_raised(E, st, sm, -1, c);
    wake_at(E, st, c);
    return SIM_END_LATER;
}

/* §3.6's idle-warp sample at cycle c, after its issue: a warp that could
 * issue (ready, its kernel's counter on the SM positive: not throttled by
 * its quota) and did not is idle, and so is one whose memory request still
 * waits in the device's queue (tba_held; tb_adjust.h: GPGPU-Sim holds such
 * a warp at issue, "a full pipeline"). */
static void tba_sample(ew_state *E, int64_t c) {
    for (int32_t s = 0; s < E->nsubs; s++) {
        const warp_sub *w = &E->subs[s];
        int32_t sm = s / E->nsub;
        for (int32_t p = 0; p < w->n; p++) {
            int32_t k = w->info[p].kernel;
            bool held = E->tba_held[(size_t)s * (size_t)E->tba_cap + (size_t)p] > c;
            if (held || (w->ready[p] <= c && quota_counter(&E->q, sm, E->qk[k]) > 0))
                E->tba_iw[(size_t)sm * E->nk + (size_t)k]++;
        }
    }
    E->tba_samples++;
    E->tba_next = c + E->tba_step;
}

/* §3.6's run-time adjustment at the QoS manager's epoch boundary c: the
 * decision (tb_adjust.c) from the epoch's mean idle warps, then each move:
 * the QoS kernel's share of the SM one TB more, the victim's n fewer and
 * its n youngest TBs there preempted; the block scheduler looks again at
 * the next cycle. */
static void tba_epoch(ew_state *E, sim_state *st, int64_t c) {
    int32_t sms = st->sms.n;
    size_t nk = E->nk, cells = (size_t)sms * nk;
    /* the first boundary has no epoch behind it: nothing sampled, no
     * IPC_history, so nothing to decide ("At the beginning of an epoch,
     * the number of IWs is collected": those of the epoch that ended) */
    if (E->tba_samples == 0) return;
    for (size_t i = 0; i < cells; i++) {
        E->tba_mean[i] = (double)E->tba_iw[i] / (double)E->tba_samples;
        E->tba_iw[i] = 0;
    }
    E->tba_samples = 0;
    for (size_t k = 0; k < nk; k++) {
        const sim_kstate *SK = &st->ks[k];
        const quota_kernel *Q = &E->q.k[E->qk[k]];
        int64_t tbs = 0;
        for (int32_t sm = 0; sm < sms; sm++) tbs += st->share_res[k * (size_t)sms + (size_t)sm];
        int64_t span = Q->first_cycle >= 0 ? c - Q->first_cycle : 0;
        E->tba_k[k] = (tba_kernel){
            .live = SK->placed > SK->done || SK->saved > 0,
            .qos = Q->qos,
            .waiting = SK->saved > 0 || (SK->placed > 0 && SK->placed < SK->blocks),
            .ipc_history = span > 0 ? (double)Q->instr / (double)span : 0,
            .goal = Q->goal,
            .need = SK->need,
            .tbs = tbs };
    }
    for (int32_t sm = 0; sm < sms; sm++) E->tba_swap[sm] = E->port_free[sm] <= c;
    size_t nm = tba_decide(E->tba_k, (int32_t)nk, sms, E->tba_mean, st->share_res, st->sms.free,
                           E->tba_swap, E->tba_moves, cells);
    for (size_t i = 0; i < nm; i++) {
        const tba_move *m = &E->tba_moves[i];
        st->share_adj[(size_t)m->k * (size_t)sms + (size_t)m->sm]++;
        if (m->victim < 0) continue;
        st->share_adj[(size_t)m->victim * (size_t)sms + (size_t)m->sm] -= m->n;
        for (int32_t j = 0; j < m->n; j++) {
            int32_t young = -1;
            for (int32_t b = 0; b < E->nblocks; b++) {
                const ew_block *B = &E->blocks[b];
                if (B->warps_left > 0 && B->kernel == m->victim && B->sm == m->sm &&
                    (young < 0 || B->wid0 > E->blocks[young].wid0))
                    young = b;
            }
            if (young >= 0) preempt_block(E, st, young, c, &E->port_free[m->sm]);
        }
    }
    if (nm && sim_engine_push(&st->eng, ns_of_cycle(E, c + 1), EV_DISPATCH, 0, 0) != 0)
        st->failed = true;
}

/* The run-time Spart's epoch boundary (placement spart-climb, spart.c),
 * at the first simulated cycle at or after it, as the QoS manager's: the
 * placement sees each kernel's instructions so far; when it moves an SM,
 * the block scheduler looks again at the next cycle (blocks placed then
 * join before that cycle runs). */
static void climb_epoch(ew_state *E, sim_state *st, int64_t c) {
    for (size_t k = 0; k < E->nk; k++) E->climb_issued[k] = E->ks[k].instructions;
    if (st->placement->qos_epoch(st->placement_state, st, E->climb_issued, c - E->climb_at)) {
        if (sim_engine_push(&st->eng, ns_of_cycle(E, c + 1), EV_DISPATCH, 0, 0) != 0)
            st->failed = true;
        /* with policy.sm_preempt, the blocks on an SM their stream no longer
         * owns are preempted, in slot order, one after another through each
         * SM's port; else they drain */
        for (int32_t b = 0; E->saved_head && b < E->nblocks; b++) {
            const ew_block *B = &E->blocks[b];
            if (B->warps_left <= 0) continue;
            int32_t lo, hi, r = E->sm_rank[B->sm];
            sim_part_span(st, st->cfg->ops[st->ks[B->kernel].op].stream, &lo, &hi);
            if (r < lo || r >= hi) preempt_block(E, st, b, c, &E->port_free[B->sm]);
        }
    }
    E->climb_at = c;
    E->climb_next = (c / E->climb_len + 1) * E->climb_len;
}

/* Run cycle c: every sub-core due in it, in ascending order. */
static void run_cycle(ew_state *E, sim_state *st, int64_t c) {
    uint64_t *now = E->now;
    if (in_wheel(E, c)) {
        size_t slot = (size_t)(c & (EW_WHEEL - 1));
        uint64_t *w = E->wheel + slot * (size_t)E->words;
        for (int32_t i = 0; i < E->words; i++) {
            now[i] = w[i];
            w[i] = 0;
        }
        E->summary[slot >> 6] &= ~(1ULL << (slot & 63));
    }
    while (heap_top(E) == c) {
        int32_t s = E->heap[0].s;
        now[s >> 6] |= 1ULL << (s & 63);
        heap_pop(E);
    }
    E->cur = c;
    if (E->mq_nend) mq_release(E, c);
    /* the QoS manager's epoch boundary, before any sub-core issues in it;
     * every sleeping sub-core looks at its new counters */
    if (E->quota && c >= E->q.next_boundary) {
        quota_epoch(&E->q, c);
        if (E->tba_iw) tba_epoch(E, st, c);
        for (int32_t j = 0; j < E->nsubs; j++)
            if (E->qpoll[j]) qpoll_wake(E, st, j, c);
        memset(E->q.raised, 0, (size_t)E->q.nsms);
    }
    if (E->climb_issued && c >= E->climb_next) climb_epoch(E, st, c);
    if (c / E->epoch_len != E->epoch) {
        epoch_flush(E);
        E->epoch = c / E->epoch_len;
    }
    if (E->quota) {
        /* in order, one at a time: a sub-core's turn may add a later one
         * of its SM to this cycle (qpoll_raised) */
        for (int32_t i = 0; i < E->words; i++)
            while (now[i]) {
                int32_t n = i * 64 + __builtin_ctzll(now[i]);
                now[i] &= now[i] - 1;
                /* the next sub-core's arrays are fetched into the cache
                 * while this one runs (as below; only a hint: this turn may
                 * still add another before it) */
                if (now[i]) prefetch_subcore(&E->subs[i * 64 + __builtin_ctzll(now[i])]);
                run_subcore_quota(E, st, n, c);
            }
    } else {
        /* the next sub-core's warps are fetched into the cache while this
         * one runs (a full GPU's warps do not fit in L1) */
        int32_t s = -1;
        for (int32_t i = 0; i < E->words; i++) {
            while (now[i]) {
                int32_t n = i * 64 + __builtin_ctzll(now[i]);
                now[i] &= now[i] - 1;
                const warp_sub *nw = &E->subs[n];
                __builtin_prefetch(nw->ready);
                __builtin_prefetch(nw->ready + 8);
                __builtin_prefetch(&nw->info[nw->hint]);
                if (s >= 0) run_subcore(E, st, s, c);
                s = n;
            }
        }
        if (s >= 0) run_subcore(E, st, s, c);
    }
    /* then each SM's front end, which sees the buffers this cycle emptied */
    for (int32_t i = 0; E->fe_nsms && i < E->sm_words; i++) {
        uint64_t m = E->fe_sms[i];
        while (m) {
            int32_t sm = i * 64 + __builtin_ctzll(m);
            m &= m - 1;
            fe_fetch(E, st, sm, c);
        }
    }
    if (E->tba_iw && c >= E->tba_next) tba_sample(E, c);
}

/* The armed cycle runs once its instant is over; so do the cycles after it
 * that begin before anything else happens (the next event, or the host's
 * next action, at `horizon`): nothing can place a block before them. A
 * cycle that begins at the horizon waits for its own event, so that blocks
 * placed then take part in it. */
static void warp_instant_end(void *self, sim_state *st, int64_t t, int64_t horizon) {
    ew_state *E = self;
    (void)t;
    int64_t c = E->armed;
    if (c < 0) return;
    E->armed = -1;
    /* a block placed in this instant may have asked for this very cycle */
    if (E->pending == c) {
        if (E->pending_id) sim_engine_cancel(&st->eng, E->pending_id);
        E->pending = INT64_MAX;
        E->pending_id = 0;
    }
    for (;;) {
        run_cycle(E, st, c);
        if (st->failed) return;
        int64_t nx = next_due(E);
        if (nx == INT64_MAX) return;
        int64_t tn = ns_of_cycle(E, nx), te = sim_engine_next_time(&st->eng);
        if (tn >= horizon || tn >= te) {
            wake_at(E, st, nx);
            return;
        }
        c = nx;
    }
}

const exec_policy exec_warp = {
    .name = "warp",
    .doc = "warp-level timing: blocks run their kernel's program on the SM's sub-cores under "
           "policy.warp (QAWS paper §II, §IV)",
    .state_size = sizeof(ew_state),
    .ends_later = true,
    .check = warp_check,
    .init = warp_init,
    .fini = warp_fini,
    .block_end = warp_block_end,
    .on_event = warp_on_event,
    .block_resume = warp_block_resume,
    .instant_end = warp_instant_end,
};

static const char *const iclass_names[SIM_NICLASS] = {
    [SIM_ICLASS_ALU] = "alu",
    [SIM_ICLASS_SFU] = "sfu",
    [SIM_ICLASS_SHARED] = "shared",
    [SIM_ICLASS_MEM] = "mem",
    [SIM_ICLASS_BARRIER] = "barrier",
};

const char *sim_iclass_name(int32_t iclass) {
    return iclass >= 0 && iclass < SIM_NICLASS ? iclass_names[iclass] : NULL;
}

int32_t sim_iclass_find(const char *name) {
    for (int32_t i = 0; name && i < SIM_NICLASS; i++)
        if (strcmp(iclass_names[i], name) == 0) return i;
    return -1;
}

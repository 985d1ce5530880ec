/* trace_fields.h -- the fields of trace.h's records, declared once (issue
 * 24, point 4), in the style of SIM_DEVICE_FIELDS (device.h).
 *
 * The database's column lists and its store and load of a kernel or a
 * copy (db/db_int.h's DBI_KERNEL_COLS, db/db_store.c, db/db_load.c) and the
 * importers' range checks (importers/trace_check.c) walk these lists, and
 * tests/unit/test_trace_fields.c checks the tables a fresh database has
 * against them, so a new field of a stored record is one line here, its
 * member in trace.h, and the migration that adds its column (docs/
 * extending.md, "A new record field"). The lists are in column order.
 *
 *   X(col, member, kind, check)
 *     col     the column (kernels, copies), and the name a block's field has
 *     member  the struct member: a name, or an element (grid[0])
 *     kind    how it is stored: TF_STR (a trace_str: a strings.id, NULL for
 *             0), TF_PRIO (int32; NULL for TRACE_PRIO_NONE), TF_I32, TF_I64,
 *             TF_TIME (int64; NULL for TRACE_NONE: times, and sizes that
 *             may be unknown), TF_F64 (a double; 0 stored for NaN and
 *             infinities), TF_BOOL
 *     check   what an importer's range check asks of it (trace_check.c):
 *             TF_CK_NONE, TF_CK_TIME (within +-2^62 ns, or TRACE_NONE),
 *             TF_CK_COUNT (not negative, or TRACE_NONE), TF_CK_SM (0..the
 *             most SMs stored), TF_CK_KERNEL (a kernel of the trace)
 *
 * S separates two entries: the column lists pass ", " (one string literal
 * in the end), every other walk an empty macro (TF_NOSEP). Blocks are
 * stored as pages (db/bpage.h, a fixed codec), so their list drives the
 * range checks only. A new record type (a cohort, say) is one more list
 * here and the same walks. */
#ifndef SIMCORE_TRACE_FIELDS_H
#define SIMCORE_TRACE_FIELDS_H

#define TF_NOSEP

#define TRACE_KERNEL_FIELDS(X, S)                               \
    X(name,             name,             TF_STR,  TF_CK_NONE)  \
  S X(raw_name,         raw_name,         TF_STR,  TF_CK_NONE)  \
  S X(stream,           stream,           TF_STR,  TF_CK_NONE)  \
  S X(process,          process,          TF_STR,  TF_CK_NONE)  \
  S X(priority,         priority,         TF_PRIO, TF_CK_NONE)  \
  S X(threads,          threads,          TF_I32,  TF_CK_COUNT) \
  S X(issue,            issue,            TF_TIME, TF_CK_TIME)  \
  S X(first_block,      first_block,      TF_TIME, TF_CK_TIME)  \
  S X(fully_dispatched, fully_dispatched, TF_TIME, TF_CK_TIME)  \
  S X(stop,             end,              TF_TIME, TF_CK_TIME)  \
  S X(blocks,           blocks,           TF_I64,  TF_CK_COUNT) \
  S X(smem,             smem,             TF_TIME, TF_CK_COUNT) \
  S X(regs,             regs,             TF_I32,  TF_CK_COUNT) \
  S X(grid_x,           grid[0],          TF_I32,  TF_CK_NONE)  \
  S X(grid_y,           grid[1],          TF_I32,  TF_CK_NONE)  \
  S X(grid_z,           grid[2],          TF_I32,  TF_CK_NONE)  \
  S X(block_x,          block[0],         TF_I32,  TF_CK_NONE)  \
  S X(block_y,          block[1],         TF_I32,  TF_CK_NONE)  \
  S X(block_z,          block[2],         TF_I32,  TF_CK_NONE)  \
  S X(instructions,     instructions,     TF_I64,  TF_CK_NONE)  \
  S X(ipc,              ipc,              TF_F64,  TF_CK_NONE)  \
  S X(qos_goal,         qos_goal,         TF_F64,  TF_CK_NONE)  \
  S X(ipc_isolated,     ipc_isolated,     TF_F64,  TF_CK_NONE)  \
  S X(ipc_shared,       ipc_shared,       TF_F64,  TF_CK_NONE)  \
  S X(qos_met,          qos_met,          TF_BOOL, TF_CK_NONE)

#define TRACE_COPY_FIELDS(X, S)                   \
    X(name,      name,      TF_STR,  TF_CK_NONE)  \
  S X(stream,    stream,    TF_STR,  TF_CK_NONE)  \
  S X(process,   process,   TF_STR,  TF_CK_NONE)  \
  S X(direction, direction, TF_I32,  TF_CK_NONE)  \
  S X(engine,    engine,    TF_I32,  TF_CK_NONE)  \
  S X(bytes,     bytes,     TF_TIME, TF_CK_COUNT) \
  S X(issue,     issue,     TF_TIME, TF_CK_TIME)  \
  S X(start,     start,     TF_TIME, TF_CK_TIME)  \
  S X(stop,      end,       TF_TIME, TF_CK_TIME)

#define TRACE_BLOCK_FIELDS(X, S)                 \
    X(kernel, kernel, TF_I32,  TF_CK_KERNEL)     \
  S X(index,  index,  TF_I32,  TF_CK_COUNT)      \
  S X(sm,     sm,     TF_I32,  TF_CK_SM)         \
  S X(start,  start,  TF_TIME, TF_CK_TIME)       \
  S X(stop,   end,    TF_TIME, TF_CK_TIME)

/* how many fields a list has: (0 TRACE_KERNEL_FIELDS(TF_ONE, TF_NOSEP)) */
#define TF_ONE(col, member, kind, check) +1

#endif

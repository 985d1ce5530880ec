/* trace_fields.h -- the fields of trace.h's records, declared once (issue
 * 24, point 4), in the style of SIM_DEVICE_FIELDS (device.h).
 *
 * Every walk over a record's fields walks these lists: the database's
 * column lists and its store and load of a kernel or a copy (db/db_int.h's
 * DBI_KERNEL_COLS, db/db_store.c, db/db_load.c), the row orders of the run
 * view's tables (db/rorder.c), the schedlab-trace/1 writer and reader
 * (server/formats/trace_json.c, importers/schedlab_trace.c) and the
 * importers' range checks (importers/trace_check.c);
 * tests/unit/test_trace_fields.c checks the tables a fresh database has
 * against them. So a new field of a record is one line here, its member in
 * trace.h, and the migration that adds its column (docs/extending.md, "A
 * record field"). The lists are in the order of the trace JSON's keys
 * (the columns are named wherever they are used, so the table's own
 * column order does not matter).
 *
 *   X(col, member, kind, check, json, jkind, when, sort)
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
 *             most SMs stored), TF_CK_KERNEL (a kernel of the trace),
 *             TF_CK_DEVICE (a GPU of the trace: 0..trace_device_count-1)
 *     json    its key in schedlab-trace/1 (docs/trace-format.md) and in
 *             the API's records; also its sort key's name
 *     jkind   how the trace JSON writes and reads it (a key absent or null
 *             reads as the record's default, trace_add_*: unknown):
 *               TJ_STR    a string, null for none
 *               TJ_PRIO   an integer, "none" for TRACE_PRIO_NONE
 *               TJ_TIME   integer ns, null for TRACE_NONE
 *               TJ_SIZE   a non-negative integer, null for TRACE_NONE
 *               TJ_COUNT  a count, null for 0 (unknown); read as an int32
 *                         (an int32 member) or as non-negative (int64)
 *               TJ_INT    an int32 as it is (a block's kernel, index, sm)
 *               TJ_INDEX  an int32 index, null for -1 (unknown)
 *               TJ_DIR    a copy direction by its name (trace_copy_dir_name)
 *               TJ_DIM3   the first of three int32 elements, written as one
 *                         array [x,y,z], left out when all three are 0;
 *                         TJ_DIM3_REST marks the other two
 *               TJ_F64    a non-negative number, null for NaN / infinities
 *               TJ_FRACTION  a number in (0, 1]
 *               TJ_BOOL   true or false
 *               TJ_DEVICE an index in the trace's devices, 0 when absent
 *     when    when the writer writes it (the reader takes it whenever it is
 *             there): TJ_ALWAYS, TJ_IF_SET (not 0), TJ_IF_WARP (a warp-
 *             level run's kernel: instructions > 0), TJ_IF_QOS (a QoS run's
 *             kernel: a finite ipc_isolated > 0), TJ_IF_QOS_GOAL (and a QoS
 *             kernel: qos_goal > 0), TJ_IF_QOS_SHARED (a QoS run's other
 *             kernel with a finite ipc_shared), TJ_IF_DEVICES (a trace
 *             of several GPUs: its devices are not empty); trace.h says why
 *     sort    0, or its number as a sort key of the run view's table
 *             (GET /api/runs/{run}/kernels?sort=, db/rorder.h): the number
 *             is stored with each computed order (record_orders.variant),
 *             so a field keeps its number; a new sort key takes the next
 *             free one (ROR_K_N / ROR_C_N in rorder.h count them)
 *
 * S separates two entries: the column lists pass ", " (one string literal
 * in the end), every other walk an empty macro (TF_NOSEP). Blocks are
 * stored as pages (db/bpage.h, a fixed codec), so their list drives the
 * range checks and the trace JSON only. A new record type (a cohort, say)
 * is one more list here and the same walks. Walkers that need only the
 * first attributes take the rest as "..." (TF_ONE). */
#ifndef SIMCORE_TRACE_FIELDS_H
#define SIMCORE_TRACE_FIELDS_H

#define TF_NOSEP

#define TRACE_KERNEL_FIELDS(X, S)                                                                                            \
    X(name,              name,              TF_STR,   TF_CK_NONE,   name,              TJ_STR,        TJ_ALWAYS,         1)  \
  S X(raw_name,          raw_name,          TF_STR,   TF_CK_NONE,   raw_name,          TJ_STR,        TJ_IF_SET,         0)  \
  S X(stream,            stream,            TF_STR,   TF_CK_NONE,   stream,            TJ_STR,        TJ_ALWAYS,         2)  \
  S X(process,           process,           TF_STR,   TF_CK_NONE,   process,           TJ_STR,        TJ_ALWAYS,         0)  \
  S X(priority,          priority,          TF_PRIO,  TF_CK_NONE,   priority,          TJ_PRIO,       TJ_ALWAYS,         3)  \
  S X(issue,             issue,             TF_TIME,  TF_CK_TIME,   issue,             TJ_TIME,       TJ_ALWAYS,         5)  \
  S X(first_block,       first_block,       TF_TIME,  TF_CK_TIME,   first_block,       TJ_TIME,       TJ_ALWAYS,         6)  \
  S X(fully_dispatched,  fully_dispatched,  TF_TIME,  TF_CK_TIME,   fully_dispatched,  TJ_TIME,       TJ_ALWAYS,         7)  \
  S X(stop,              end,               TF_TIME,  TF_CK_TIME,   end,               TJ_TIME,       TJ_ALWAYS,         8)  \
  S X(blocks,            blocks,            TF_I64,   TF_CK_COUNT,  blocks,            TJ_COUNT,      TJ_ALWAYS,         4)  \
  S X(threads,           threads,           TF_I32,   TF_CK_COUNT,  threads,           TJ_COUNT,      TJ_ALWAYS,         0)  \
  S X(smem,              smem,              TF_TIME,  TF_CK_COUNT,  smem,              TJ_SIZE,       TJ_ALWAYS,         0)  \
  S X(regs,              regs,              TF_I32,   TF_CK_COUNT,  regs,              TJ_COUNT,      TJ_ALWAYS,         0)  \
  S X(grid_x,            grid[0],           TF_I32,   TF_CK_NONE,   grid,              TJ_DIM3,       TJ_ALWAYS,         0)  \
  S X(grid_y,            grid[1],           TF_I32,   TF_CK_NONE,   grid,              TJ_DIM3_REST,  TJ_ALWAYS,         0)  \
  S X(grid_z,            grid[2],           TF_I32,   TF_CK_NONE,   grid,              TJ_DIM3_REST,  TJ_ALWAYS,         0)  \
  S X(block_x,           block[0],          TF_I32,   TF_CK_NONE,   block,             TJ_DIM3,       TJ_ALWAYS,         0)  \
  S X(block_y,           block[1],          TF_I32,   TF_CK_NONE,   block,             TJ_DIM3_REST,  TJ_ALWAYS,         0)  \
  S X(block_z,           block[2],          TF_I32,   TF_CK_NONE,   block,             TJ_DIM3_REST,  TJ_ALWAYS,         0)  \
  S X(instructions,      instructions,      TF_I64,   TF_CK_NONE,   instructions,      TJ_COUNT,      TJ_IF_WARP,        0)  \
  S X(ipc,               ipc,               TF_F64,   TF_CK_NONE,   ipc,               TJ_F64,        TJ_IF_WARP,        0)  \
  S X(qos_goal,          qos_goal,          TF_F64,   TF_CK_NONE,   qos_goal,          TJ_FRACTION,   TJ_IF_QOS_GOAL,    0)  \
  S X(ipc_isolated,      ipc_isolated,      TF_F64,   TF_CK_NONE,   ipc_isolated,      TJ_F64,        TJ_IF_QOS,         0)  \
  S X(ipc_shared,        ipc_shared,        TF_F64,   TF_CK_NONE,   ipc_shared,        TJ_F64,        TJ_IF_QOS_SHARED,  0)  \
  S X(qos_met,           qos_met,           TF_BOOL,  TF_CK_NONE,   qos_met,           TJ_BOOL,       TJ_IF_QOS_GOAL,    0)  \
  S X(device,            device,            TF_I32,   TF_CK_DEVICE, device,            TJ_DEVICE,     TJ_IF_DEVICES,     0)

#define TRACE_COPY_FIELDS(X, S)                                                              \
    X(name,       name,       TF_STR,   TF_CK_NONE,   name,       TJ_STR,    TJ_ALWAYS,  1)  \
  S X(stream,     stream,     TF_STR,   TF_CK_NONE,   stream,     TJ_STR,    TJ_ALWAYS,  2)  \
  S X(process,    process,    TF_STR,   TF_CK_NONE,   process,    TJ_STR,    TJ_ALWAYS,  0)  \
  S X(direction,  direction,  TF_I32,   TF_CK_NONE,   direction,  TJ_DIR,    TJ_ALWAYS,  3)  \
  S X(bytes,      bytes,      TF_TIME,  TF_CK_COUNT,  bytes,      TJ_TIME,   TJ_ALWAYS,  4)  \
  S X(issue,      issue,      TF_TIME,  TF_CK_TIME,   issue,      TJ_TIME,   TJ_ALWAYS,  5)  \
  S X(start,      start,      TF_TIME,  TF_CK_TIME,   start,      TJ_TIME,   TJ_ALWAYS,  6)  \
  S X(stop,       end,        TF_TIME,  TF_CK_TIME,   end,        TJ_TIME,   TJ_ALWAYS,  7)  \
  S X(engine,     engine,     TF_I32,   TF_CK_NONE,   engine,     TJ_INDEX,  TJ_ALWAYS,  0)  \
  S X(device,     device,     TF_I32,   TF_CK_DEVICE, device,     TJ_DEVICE, TJ_IF_DEVICES, 0)

#define TRACE_BLOCK_FIELDS(X, S)                                                    \
    X(kernel,  kernel,  TF_I32,   TF_CK_KERNEL,  kernel,  TJ_INT,   TJ_ALWAYS,  0)  \
  S X(index,   index,   TF_I32,   TF_CK_COUNT,   index,   TJ_INT,   TJ_ALWAYS,  0)  \
  S X(sm,      sm,      TF_I32,   TF_CK_SM,      sm,      TJ_INT,   TJ_ALWAYS,  0)  \
  S X(start,   start,   TF_TIME,  TF_CK_TIME,    start,   TJ_TIME,  TJ_ALWAYS,  0)  \
  S X(stop,    end,     TF_TIME,  TF_CK_TIME,    end,     TJ_TIME,  TJ_ALWAYS,  0)

/* how many fields a list has: (0 TRACE_KERNEL_FIELDS(TF_ONE, TF_NOSEP)) */
#define TF_ONE(col, ...) +1

#endif

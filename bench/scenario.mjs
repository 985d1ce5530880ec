// scenario.mjs -- the bench workload of bench_sim.c as a schedlab-scenario/1
// file, so the HTTP, browser and `schedlab simulate` rows run the same shape
// of work through the CLI and the server that bench_sim runs through the C
// API: h100 (132 SMs), 4096 kernels over 64 streams at priorities -2, -1, 0
// and none, mixed block sizes, shared memory and registers, four block
// times per kernel cycled by block index, all issued over the first 20 ms so
// the queues stay deep. The generator is bench_sim's (splitmix64, seed 42),
// drawn in the same order, so the same block count gives the same kernels.

const NKERNELS = 4096;
const NSTREAMS = 64;
const MASK = (1n << 64n) - 1n;

function rng(seed) {
  let s = BigInt(seed);
  const next = () => {
    s = (s + 0x9E3779B97F4A7C15n) & MASK;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & MASK;
    return z ^ (z >> 31n);
  };
  return (lo, hi) => lo + Number(next() % BigInt(hi - lo + 1));
}

export function benchScenario(total) {
  if (!Number.isInteger(total) || total < NKERNELS) throw new Error(`bench scenario: ${total} is not a block count >= ${NKERNELS}`);
  const range = rng(42);
  const prios = [-2, -1, 0, 'none'];
  const threads = [64, 128, 256, 512, 1024];
  const streams = [];
  for (let i = 0; i < NSTREAMS; i++) streams.push({ name: `S${i}`, process: 'P0', priority: prios[i % 4] });
  const per = Math.floor(total / NKERNELS);
  let left = total;
  const ops = [];
  for (let i = 0; i < NKERNELS; i++) {
    let blocks = i === NKERNELS - 1 ? left : range(Math.floor(per / 2), per + Math.floor(per / 2));
    if (blocks > left - (NKERNELS - 1 - i)) blocks = left - (NKERNELS - 1 - i);
    if (blocks < 1) blocks = 1;
    left -= blocks;
    const times = [];
    for (let j = 0; j < 4; j++) times.push(range(5000, 50000));
    const thr = threads[range(0, 4)];
    const stream = range(0, NSTREAMS - 1);
    const at = range(0, 20000000);
    const smem = range(0, 3) === 0 ? 0 : range(0, 48 * 1024);
    const regs = range(16, 64);
    ops.push({ kernel: `K${i}`, stream: `S${stream}`, at, blocks, threads: thr, smem, regs, block_time: times });
  }
  const label = total >= 1e6 && total % 1e6 === 0 ? `${total / 1e6}M` : String(total);
  return {
    schema: 'schedlab-scenario/1',
    name: `bench ${label} blocks`,
    description: `make bench's workload (bench/scenario.mjs, the generator of bench/bench_sim.c): ${total} blocks of 4096 kernels over 64 streams on an h100.`,
    device: 'h100',
    streams,
    ops,
  };
}

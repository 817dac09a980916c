// Back-pressure on the queue's Redis: its memory is sampled every few seconds and ingest
// refuses events (503 + Retry-After, which the senders retry) while it uses more than a share
// of its maxmemory. The queue Redis runs with `maxmemory-policy noeviction`, so at the limit it
// would refuse writes itself; stopping earlier keeps room for the workers, whose every step
// (taking a job, finishing it) writes, so they drain the queue while ingest holds back. An
// event is refused before anything of it is queued: none accepted is lost.
import { Cluster } from 'ioredis';
import type { Logger } from '../../shared/io/log.ts';
import type { QueueClient } from '../../shared/io/queue/connection.ts';

export interface Memory {
  readonly used: number;
  /** 0: no limit configured. */
  readonly max: number;
}

/** used_memory and maxmemory from the text of `INFO memory`. */
export function memoryOf(info: string): Memory | undefined {
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
  const used = field('used_memory');
  const max = field('maxmemory');
  return Number.isFinite(used) && Number.isFinite(max) ? { used, max } : undefined;
}

export function isFull(memory: Memory | undefined, highWater: number): boolean {
  return memory !== undefined && memory.max > 0 && memory.used >= memory.max * highWater;
}

/** The fullest node: on a Redis Cluster the queue sits in one slot, on one master of several. */
async function sampleMemory(redis: QueueClient): Promise<Memory | undefined> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const memories = (await Promise.all(nodes.map(async (n) => memoryOf(await n.info('memory'))))).filter(
    (m) => m !== undefined,
  );
  const share = (m: Memory) => (m.max > 0 ? m.used / m.max : 0);
  return memories.sort((a, b) => share(b) - share(a))[0];
}

export interface QueuePressure {
  /** True while the last sample was above the high-water mark. */
  full(): boolean;
  stop(): void;
}

export function watchQueuePressure(options: {
  readonly redis: QueueClient;
  readonly highWater: number;
  readonly everyMs: number;
  readonly log: Logger;
}): QueuePressure {
  const { redis, highWater, log } = options;
  let memory: Memory | undefined;
  let warnedUnbounded = false;
  let wasFull = false;
  const sample = async () => {
    try {
      memory = await sampleMemory(redis);
    } catch {
      return; // unreachable: enqueue fails and ingest answers 503 on its own
    }
    if (memory?.max === 0 && !warnedUnbounded) {
      warnedUnbounded = true;
      log.warn("the queue's Redis has no maxmemory: ingest cannot refuse events before it fills");
    }
    const full = isFull(memory, highWater);
    if (full !== wasFull)
      log.warn(
        { used: memory?.used, max: memory?.max, highWater },
        full ? "the queue's Redis is nearly full: refusing events" : "the queue's Redis has room again",
      );
    wasFull = full;
  };
  void sample();
  const timer = setInterval(() => void sample(), options.everyMs);
  timer.unref();
  return { full: () => isFull(memory, highWater), stop: () => clearInterval(timer) };
}

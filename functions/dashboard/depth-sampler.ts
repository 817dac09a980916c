// Samples the queue's depth into the run log for the cluster view's chart, while the
// dashboard runs (a chart of the last hour needs points when nobody is looking).
import type { Queue } from 'bullmq';
import type { Logger } from '../../shared/io/log.ts';
import { depthSample, depthStates, type RunLog } from '../../shared/io/queue/run-log.ts';

export function startDepthSampler(
  queue: Queue,
  runs: RunLog,
  everyMs: number,
  log: Logger,
  clock: () => number = Date.now,
): { stop(): void } {
  const sample = async () => runs.sampleDepth(depthSample(await queue.getJobCounts(...depthStates), clock()));
  const timer = setInterval(
    () => void sample().catch((error: unknown) => log.warn({ err: error }, 'could not sample the queue depth')),
    everyMs,
  );
  timer.unref();
  void sample().catch(() => {});
  return { stop: () => clearInterval(timer) };
}

// The sample's progress as `npm run dev` shows it: one line per change of what a user cares
// about (phase, the conditions' messages, slots covered, ready nodes), never a spinner.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, PLURAL, SLOT_COUNT, STORAGE_VERSION } from '../../shared/core/api/group.ts';
import { withDefaults } from '../../shared/core/api/defaults.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';

/** One line describing the RedisCluster's status; equal lines mean nothing visible changed. */
export function progressLine(rc: RedisCluster | undefined): string {
  if (!rc) return 'not found yet';
  const s = rc.status;
  if (!s) return 'created; waiting for the operator';
  const spec = withDefaults(rc.spec);
  const nodes = spec.masters * (1 + spec.replicasPerMaster);
  const parts = [
    `phase ${s.phase ?? '?'}`,
    `slots ${s.slotsCovered ?? 0}/${SLOT_COUNT}`,
    `nodes ready ${s.readyNodes ?? 0}/${nodes}`,
  ];
  for (const c of s.conditions ?? []) {
    // Ready=False says the same as the others; show conditions that are true, and why not Ready.
    if (c.status === 'True' || c.type === 'Ready')
      parts.push(`${c.type}=${c.status}${c.message ? ` (${c.message})` : ''}`);
  }
  return parts.join(' · ');
}

/** Ready for this generation, every slot covered. */
export function isReady(rc: RedisCluster | undefined): boolean {
  const ready = rc?.status?.conditions?.find((c) => c.type === 'Ready');
  return (
    ready?.status === 'True' &&
    (ready.observedGeneration ?? rc?.status?.observedGeneration) === rc?.metadata.generation &&
    rc?.status?.slotsCovered === SLOT_COUNT
  );
}

export interface WatchProgress {
  /** Resolves true once Ready, false when the timeout passed or stop() was called. */
  readonly done: Promise<boolean>;
  stop(): void;
}

/** Polls the RedisCluster every second and reports each changed line (errors too, once). */
export function watchProgress(
  kc: KubeConfig,
  namespace: string,
  name: string,
  timeoutMs: number,
  report: (line: string) => void,
): WatchProgress {
  const custom = kc.makeApiClient(CustomObjectsApi);
  let stopped = false;
  let last = '';
  const deadline = Date.now() + timeoutMs;
  const done = (async () => {
    while (!stopped && Date.now() < deadline) {
      let rc: RedisCluster | undefined;
      let line: string;
      try {
        rc = (await custom.getNamespacedCustomObject({
          group: GROUP,
          version: STORAGE_VERSION,
          namespace,
          plural: PLURAL,
          name,
        })) as RedisCluster;
        line = progressLine(rc);
      } catch (error) {
        line = `cannot read it: ${(error as Error).message.split('\n')[0]}`;
      }
      if (line !== last) report(line);
      last = line;
      if (isReady(rc)) return true;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    return false;
  })();
  return {
    done,
    stop: () => {
      stopped = true;
    },
  };
}

// A scripted stand-in for client-node's Watch and the list call, for the list-watch loop:
// each watch() call plays the next step (events, then an end), and records its parameters.
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';

export type WatchEnd = 'close' | 'open' | { error: unknown };
export interface Step {
  events?: [string, object][];
  end: WatchEnd;
}

export const obj = (name: string, resourceVersion: string, uid = `uid-${name}`): KubernetesObject => ({
  metadata: { name, namespace: 'ns', resourceVersion, uid },
});

export class FakeWatch {
  readonly calls: Record<string, unknown>[] = [];
  constructor(private readonly steps: Step[]) {}

  async watch(
    _path: string,
    params: Record<string, unknown>,
    onEvent: (type: string, object: object) => void,
    done: (error: unknown) => void,
  ): Promise<AbortController> {
    this.calls.push(params);
    const step = this.steps.shift() ?? { end: 'open' };
    const controller = new AbortController();
    setImmediate(() => {
      for (const [type, object] of step.events ?? []) onEvent(type, object);
      if (step.end === 'close') done(null);
      else if (step.end === 'open') controller.signal.addEventListener('abort', () => done(new Error('aborted')));
      else done(step.end.error);
    });
    return controller;
  }
}

/** Plays list results in order (an Error is thrown); the last one repeats. */
export function fakeList(results: ({ items: KubernetesObject[]; rv: string } | Error)[]) {
  const fn = async (): Promise<KubernetesListObject<KubernetesObject>> => {
    fn.calls++;
    const next = results.length > 1 ? results.shift()! : results[0]!;
    if (next instanceof Error) throw next;
    return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: next.rv }, items: next.items };
  };
  fn.calls = 0;
  return fn;
}

/** Error shapes as client-node produces them. */
export const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
export const httpStatus = (statusCode: number) => Object.assign(new Error(`HTTP ${statusCode}`), { statusCode });
export const apiException = (code: number) => Object.assign(new Error(`HTTP-Code: ${code}`), { code });
export const expiredEvent = (): [string, object] => [
  'ERROR',
  { kind: 'Status', status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version: 10 (20)' },
];

export async function eventually(check: () => boolean, what: string, turns = 2_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (check()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`never happened: ${what}`);
}

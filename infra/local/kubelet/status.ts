// Pod status from what the kubelet observes of its processes (pure). The kubelet writes it only
// when its signature differs from what the API server holds, so there are no write storms.
import type { V1Pod } from '@kubernetes/client-node';

export type ContainerState =
  | { kind: 'waiting'; reason: string; message?: string }
  | { kind: 'running'; startedAt: number }
  | {
      kind: 'terminated';
      exitCode: number;
      signal?: number;
      reason: string;
      message?: string;
      startedAt: number;
      finishedAt: number;
    };

export interface ContainerView {
  readonly name: string;
  readonly image: string;
  readonly state: ContainerState;
  readonly lastTerminated?: ContainerState & { kind: 'terminated' };
  readonly ready: boolean;
  readonly started: boolean;
  readonly restartCount: number;
  readonly containerID?: string;
  /** The image the runtime ran, where it knows (containers); else `local://<image>`. */
  readonly imageID?: string;
}

export interface PodView {
  readonly podIP?: string;
  readonly hostIP: string;
  readonly initContainers: readonly ContainerView[];
  readonly containers: readonly ContainerView[];
}

export interface PodStatusPatch {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  hostIP: string;
  hostIPs: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime: string;
  conditions: {
    type: string;
    status: 'True' | 'False';
    reason?: string;
    lastTransitionTime: string;
    lastProbeTime: null;
  }[];
  initContainerStatuses: object[];
  containerStatuses: object[];
}

export function computePhase(restartPolicy: string, view: PodView): PodStatusPatch['phase'] {
  const { containers } = view;
  const initDone = view.initContainers.every((c) => c.state.kind === 'terminated' && c.state.exitCode === 0);
  const initFailed = view.initContainers.some((c) => c.state.kind === 'terminated' && c.state.exitCode !== 0);
  if (initFailed && restartPolicy === 'Never') return 'Failed';
  if (!initDone) return 'Pending';
  if (containers.some((c) => c.state.kind === 'running')) return 'Running';
  const terminated = containers.filter((c) => c.state.kind === 'terminated');
  if (terminated.length === containers.length && containers.length > 0) {
    const failed = terminated.some((c) => c.state.kind === 'terminated' && c.state.exitCode !== 0);
    if (restartPolicy === 'Never') return failed ? 'Failed' : 'Succeeded';
    if (restartPolicy === 'OnFailure' && !failed) return 'Succeeded';
    return 'Running';
  }
  // Waiting for a restart after having run: still Running, as the real kubelet reports it.
  if (containers.some((c) => c.restartCount > 0 || c.lastTerminated)) return 'Running';
  return 'Pending';
}

export function computeStatus(pod: V1Pod, view: PodView, now: number, startTime: number): PodStatusPatch {
  const phase = computePhase(pod.spec?.restartPolicy ?? 'Always', view);
  const initialized = view.initContainers.every((c) => c.state.kind === 'terminated' && c.state.exitCode === 0);
  const containersReady = view.containers.length > 0 && view.containers.every((c) => c.ready);
  const succeededOrFailed = phase === 'Succeeded' || phase === 'Failed';
  const previous = new Map((pod.status?.conditions ?? []).map((c) => [c.type, c]));
  const condition = (type: string, status: boolean, reason?: string) => {
    const value = status ? ('True' as const) : ('False' as const);
    const old = previous.get(type);
    const since = old?.status === value && old.lastTransitionTime ? toTime(old.lastTransitionTime) : iso(now);
    return {
      type,
      status: value,
      ...(status ? {} : { reason: reason ?? '' }),
      lastTransitionTime: since,
      lastProbeTime: null,
    };
  };
  const notReadyReason = succeededOrFailed ? 'PodCompleted' : 'ContainersNotReady';
  const status: PodStatusPatch = {
    phase,
    hostIP: view.hostIP,
    hostIPs: [{ ip: view.hostIP }],
    startTime: iso(startTime),
    conditions: [
      condition('PodReadyToStartContainers', view.podIP !== undefined),
      condition('Initialized', initialized, 'ContainersNotInitialized'),
      condition('ContainersReady', containersReady, notReadyReason),
      condition('Ready', containersReady, notReadyReason),
      condition('PodScheduled', true),
    ],
    initContainerStatuses: view.initContainers.map(toContainerStatus),
    containerStatuses: view.containers.map(toContainerStatus),
  };
  if (view.podIP !== undefined) {
    status.podIP = view.podIP;
    status.podIPs = [{ ip: view.podIP }];
  }
  return status;
}

/** What matters when comparing the status we computed with the one the API server holds. */
export function statusSignature(status: Partial<PodStatusPatch> | V1Pod['status'] | undefined): string {
  const s = (status ?? {}) as Record<string, unknown>;
  const ours = ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready'];
  const conditions = ((s.conditions ?? []) as { type: string; status: string }[])
    .filter((c) => ours.includes(c.type))
    .map((c) => `${c.type}=${c.status}`)
    .sort();
  const containers = (list: unknown) =>
    ((list ?? []) as Record<string, unknown>[]).map((c) => {
      const state = (c.state ?? {}) as Record<string, Record<string, unknown> | undefined>;
      const kind = Object.keys(state).find((k) => state[k]) ?? '';
      const detail = state[kind] ?? {};
      return [
        c.name,
        c.ready,
        c.started,
        c.restartCount,
        c.containerID ?? '',
        kind,
        detail.reason ?? '',
        detail.exitCode ?? '',
        detail.message ?? '',
      ].join('|');
    });
  return JSON.stringify([
    s.phase,
    s.podIP ?? '',
    s.hostIP ?? '',
    conditions,
    containers(s.initContainerStatuses),
    containers(s.containerStatuses),
  ]);
}

function toContainerStatus(c: ContainerView): object {
  return {
    name: c.name,
    image: c.image,
    imageID: c.imageID ?? `local://${c.image}`,
    ready: c.ready,
    started: c.started,
    restartCount: c.restartCount,
    ...(c.containerID ? { containerID: c.containerID } : {}),
    state: toState(c.state),
    lastState: c.lastTerminated ? toState(c.lastTerminated) : {},
  };
}

function toState(state: ContainerState): object {
  switch (state.kind) {
    case 'waiting':
      return { waiting: { reason: state.reason, ...(state.message ? { message: state.message } : {}) } };
    case 'running':
      return { running: { startedAt: iso(state.startedAt) } };
    case 'terminated':
      return {
        terminated: {
          exitCode: state.exitCode,
          reason: state.reason,
          startedAt: iso(state.startedAt),
          finishedAt: iso(state.finishedAt),
          ...(state.signal !== undefined ? { signal: state.signal } : {}),
          ...(state.message ? { message: state.message } : {}),
        },
      };
  }
}

/** RFC 3339 without fractions, as Kubernetes writes times. */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function toTime(value: Date | string): string {
  return iso(new Date(value).getTime());
}

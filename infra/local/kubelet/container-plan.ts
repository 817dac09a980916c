// What a container of a pod asks of the container runtime (pure): its image, command and args
// with $(VAR) references expanded, its environment, its volumes at their mount paths, and what its
// pod's and its own securityContext and resources say, merged as a kubelet merges them (the
// container's own settings win). podman-runtime.ts turns it into `podman run`.
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { parseQuantity } from '../../../shared/core/resources/quantity.ts';
import { expandReferences } from './env.ts';
import type { PathMapping } from './path-map.ts';
import type { ContainerSpec } from './podman-runtime.ts';

/** A ContainerSpec without what the pod worker adds (names, sandbox, labels, log file). */
export type ContainerPlan = Omit<ContainerSpec, 'name' | 'sandbox' | 'labels' | 'logFile'>;

export interface ContainerPlanInput {
  readonly pod: V1Pod;
  readonly container: V1Container;
  /** Resolved container environment (env.ts). */
  readonly env: Readonly<Record<string, string>>;
  readonly mappings: readonly PathMapping[];
}

export function planContainer(input: ContainerPlanInput): ContainerPlan {
  const { pod, container, env } = input;
  const podContext = pod.spec?.securityContext;
  const own = container.securityContext;
  const expand = (text: string) => expandReferences(text, env);
  const runAsUser = own?.runAsUser ?? podContext?.runAsUser;
  const runAsGroup = own?.runAsGroup ?? podContext?.runAsGroup;
  // fsGroup joins the process's groups, so the volumes it owns are writable (fs-group.ts).
  const groups = [...new Set([...(podContext?.supplementalGroups ?? []), ...nullable(podContext?.fsGroup)])];
  const limits = container.resources?.limits ?? {};
  const memory = parseQuantity(limits.memory);
  const cpu = parseQuantity(limits.cpu);
  const readOnly = new Set((container.volumeMounts ?? []).filter((m) => m.readOnly).map((m) => m.mountPath));
  return {
    image: container.image ?? '',
    ...(container.command ? { command: container.command.map(expand) } : {}),
    ...(container.args ? { args: container.args.map(expand) } : {}),
    env,
    mounts: input.mappings.map((m) => ({
      source: m.hostPath,
      target: m.mountPath,
      readOnly: readOnly.has(m.mountPath),
    })),
    ...(container.workingDir ? { workingDir: container.workingDir } : {}),
    ...(runAsUser !== undefined
      ? { user: runAsGroup !== undefined ? `${runAsUser}:${runAsGroup}` : `${runAsUser}` }
      : {}),
    ...(groups.length > 0 ? { supplementalGroups: groups } : {}),
    ...(memory ? { memoryBytes: Math.floor(memory) } : {}),
    ...(cpu ? { cpus: cpu } : {}),
    ...(own?.readOnlyRootFilesystem ? { readOnlyRootFilesystem: true } : {}),
    ...(own?.capabilities?.drop?.length ? { dropCapabilities: own.capabilities.drop } : {}),
    ...(own?.capabilities?.add?.length ? { addCapabilities: own.capabilities.add } : {}),
    ...(own?.allowPrivilegeEscalation === false ? { noNewPrivileges: true } : {}),
  };
}

function nullable(value: number | undefined): number[] {
  return value === undefined ? [] : [value];
}

// Watches the pods bound to this kubelet's nodes and keeps one PodWorker per pod uid. Failing
// a node suspends its workers (processes killed, nothing written) until it is restored;
// isolating one leaves its processes running but writes and acts on nothing until then.
import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from '../../../shared/io/log.ts';
import { inform, type KubeClients } from './kube.ts';
import { PodWorker, type WorkerDeps } from './pod-worker.ts';
import type { IpAllocator } from './ip-allocator.ts';
import type { BackoffSettings } from './restart-policy.ts';

export interface PodManagerOptions {
  readonly clients: KubeClients;
  readonly objects: WorkerDeps['objects'];
  readonly log: Logger;
  readonly stateDir: string;
  /** node name -> host IP */
  readonly nodes: ReadonlyMap<string, string>;
  readonly allocator: IpAllocator;
  readonly backoff: BackoffSettings;
  readonly binaries: WorkerDeps['binaries'];
  readonly probePeriodScale: number;
  readonly runtime: WorkerDeps['runtime'];
}

export interface PodInfo {
  namespace: string;
  name: string;
  uid: string;
  node: string;
  podIP?: string;
  containers: { name: string; pid?: number; running: boolean; restartCount: number }[];
}

export class PodManager {
  private readonly workers = new Map<string, PodWorker>();
  private readonly done = new Set<string>();
  private readonly failedNodes = new Set<string>();
  private informer: ReturnType<typeof inform<V1Pod>> | undefined;

  constructor(private readonly options: PodManagerOptions) {}

  async start(): Promise<void> {
    const { clients, log } = this.options;
    this.informer = inform<V1Pod>(
      clients,
      log,
      '/api/v1/pods',
      () => clients.core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName!=' }),
      (kind, pod) => this.onEvent(kind, pod),
      'spec.nodeName!=',
    );
    await this.informer.started;
    const uids = new Set(this.informer.list().map((p) => p.metadata?.uid ?? ''));
    this.options.allocator.retain(uids);
  }

  async stop(graceMs: number): Promise<void> {
    await this.informer?.stop();
    await Promise.all([...this.workers.values()].map((w) => w.shutdown(graceMs)));
    this.workers.clear();
  }

  async failNode(node: string): Promise<void> {
    this.failedNodes.add(node);
    await Promise.all(this.onNode(node).map((w) => w.suspend()));
  }

  isolateNode(node: string): void {
    this.failedNodes.add(node);
    for (const w of this.onNode(node)) w.isolate();
  }

  restoreNode(node: string): void {
    this.failedNodes.delete(node);
    for (const w of this.onNode(node)) w.resume();
  }

  /** Every pod bound to a node, as the API server last said (the Services' endpoints). */
  listPods(): readonly V1Pod[] {
    return this.informer?.list() ?? [];
  }

  find(namespace: string, name: string): PodWorker | undefined {
    return [...this.workers.values()].find((w) => w.namespace === namespace && w.name === name);
  }

  pods(): PodInfo[] {
    return [...this.workers.values()].map((w) => ({
      namespace: w.namespace,
      name: w.name,
      uid: w.uid,
      node: w.nodeName,
      ...(w.address ? { podIP: w.address } : {}),
      containers: w.containers.map((c) => ({
        name: c.name,
        running: c.running,
        restartCount: c.restartCount,
        ...(c.process ? { pid: c.process.pid } : {}),
      })),
    }));
  }

  private onNode(node: string): PodWorker[] {
    return [...this.workers.values()].filter((w) => w.nodeName === node);
  }

  private onEvent(kind: 'add' | 'update' | 'delete', pod: V1Pod): void {
    const uid = pod.metadata?.uid ?? '';
    const node = pod.spec?.nodeName ?? '';
    const hostIP = this.options.nodes.get(node);
    if (!uid || hostIP === undefined || this.done.has(uid)) return;
    const existing = this.workers.get(uid);
    if (kind === 'delete') {
      existing?.markGone();
      return;
    }
    if (existing) {
      existing.update(pod);
      return;
    }
    const worker = new PodWorker(
      pod,
      {
        clients: this.options.clients,
        objects: this.options.objects,
        log: this.options.log,
        stateDir: this.options.stateDir,
        hostIP,
        backoff: this.options.backoff,
        binaries: this.options.binaries,
        probePeriodScale: this.options.probePeriodScale,
        runtime: this.options.runtime,
        allocate: (id) => this.options.allocator.allocate(id),
        release: (id) => this.options.allocator.release(id),
        onFinished: () => this.forget(uid),
      },
      this.failedNodes.has(node),
    );
    this.workers.set(uid, worker);
  }

  private forget(uid: string): void {
    this.workers.delete(uid);
    this.done.add(uid);
    if (this.done.size > 10_000) this.done.delete(this.done.values().next().value as string);
  }
}

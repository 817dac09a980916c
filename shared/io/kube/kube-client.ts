// The reconciler's door to the API server: reads, server-side apply under one field manager,
// deletes, the status subresource, finalizers with optimistic concurrency, and Events. It
// counts every request by verb, so a test can prove a steady cluster costs no writes.
// Adapters translate at the boundary: 404 on delete is success, 409 is a ConflictError.
import {
  CoreV1Api,
  createConfiguration,
  CustomObjectsApi,
  KubernetesObjectApi,
  Observable,
  PatchStrategy,
  ServerConfiguration,
  setHeaderOptions,
  type Configuration,
  type ConfigurationOptions,
  type KubeConfig,
  type KubernetesObject,
  type V1Node,
  type V1PersistentVolumeClaim,
  type V1Pod,
  type V1Secret,
  type V1Service,
} from '@kubernetes/client-node';
import { GROUP, PLURAL, STORAGE_VERSION } from '../../core/api/group.ts';
import type { RedisCluster, RedisClusterStatus } from '../../core/api/v1beta1.ts';
import { TransientError } from '../../core/outcome.ts';
import { FIELD_MANAGER } from '../../core/resources/names.ts';
import type { ChildCache } from './child-cache.ts';
import { isConflict, unlessNotFound } from './errors.ts';

export class ConflictError extends TransientError {
  override readonly name = 'ConflictError';
}

export type Verb = 'get' | 'list' | 'apply' | 'patch' | 'delete' | 'create';
export const WRITE_VERBS: ReadonlySet<Verb> = new Set(['apply', 'patch', 'delete', 'create']);

export interface RequestCounter {
  count(verb: Verb, resource: string): void;
}

/**
 * Per-call options of the generated APIs that tie a request to the run's AbortSignal: node-fetch
 * drops the request in flight when it fires (and rejects with an AbortError).
 */
export function abortable(signal: AbortSignal | undefined): ConfigurationOptions | undefined {
  if (!signal) return undefined;
  const pass = <T>(value: T) => new Observable(Promise.resolve(value));
  return {
    middleware: [
      {
        pre: (request) => {
          request.setSignal(signal);
          return pass(request);
        },
        post: pass,
      },
    ],
    middlewareMergeStrategy: 'append',
  };
}

export class KubeClient {
  private readonly objects: KubernetesObjectApi;
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;

  constructor(
    private readonly kc: KubeConfig,
    private readonly counter?: RequestCounter,
    /** Watch-fed children and nodes (the worker's); observe reads them when it is synced. */
    readonly cache?: ChildCache,
  ) {
    this.objects = KubernetesObjectApi.makeApiClient(kc);
    this.core = kc.makeApiClient(CoreV1Api);
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  /**
   * KubernetesObjectApi ignores per-call middleware but builds each request from the options'
   * baseServer (auth, transport and middleware stay its own), so that is where the signal goes.
   */
  private objectOptions(signal: AbortSignal | undefined): Configuration | undefined {
    if (!signal) return undefined;
    const server = new ServerConfiguration(this.kc.getCurrentCluster()?.server ?? '', {});
    return createConfiguration({
      baseServer: {
        makeRequestContext: (endpoint, method) => {
          const request = server.makeRequestContext(endpoint, method);
          request.setSignal(signal);
          return request;
        },
      },
      authMethods: { default: this.kc },
    });
  }

  private note(verb: Verb, resource: string): void {
    this.counter?.count(verb, resource);
  }

  async getCluster(namespace: string, name: string, signal?: AbortSignal): Promise<RedisCluster | undefined> {
    this.note('get', PLURAL);
    return (await unlessNotFound(
      this.custom.getNamespacedCustomObject(
        { group: GROUP, version: STORAGE_VERSION, namespace, plural: PLURAL, name },
        abortable(signal),
      ),
    )) as RedisCluster | undefined;
  }

  async read<T extends KubernetesObject>(
    apiVersion: string,
    kind: string,
    namespace: string,
    name: string,
    signal?: AbortSignal,
  ): Promise<T | undefined> {
    this.note('get', kind);
    const header = { apiVersion, kind, metadata: { name, namespace } };
    return (await unlessNotFound(
      this.objects.read(header, undefined, undefined, undefined, this.objectOptions(signal)),
    )) as T | undefined;
  }

  async listPods(namespace: string, labelSelector: string, signal?: AbortSignal): Promise<V1Pod[]> {
    this.note('list', 'pods');
    return (await this.core.listNamespacedPod({ namespace, labelSelector }, abortable(signal))).items;
  }

  async listClaims(namespace: string, labelSelector: string, signal?: AbortSignal): Promise<V1PersistentVolumeClaim[]> {
    this.note('list', 'persistentvolumeclaims');
    return (await this.core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector }, abortable(signal))).items;
  }

  async listServices(namespace: string, labelSelector: string, signal?: AbortSignal): Promise<V1Service[]> {
    this.note('list', 'services');
    return (await this.core.listNamespacedService({ namespace, labelSelector }, abortable(signal))).items;
  }

  async listSecrets(namespace: string, labelSelector: string, signal?: AbortSignal): Promise<V1Secret[]> {
    this.note('list', 'secrets');
    return (await this.core.listNamespacedSecret({ namespace, labelSelector }, abortable(signal))).items;
  }

  async listNodes(signal?: AbortSignal): Promise<V1Node[]> {
    this.note('list', 'nodes');
    return (await this.core.listNode({}, abortable(signal))).items;
  }

  async annotate(
    apiVersion: string,
    kind: string,
    namespace: string,
    name: string,
    annotations: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<void> {
    this.note('patch', kind);
    await this.objects.patch(
      { apiVersion, kind, metadata: { name, namespace, annotations } },
      undefined,
      undefined,
      FIELD_MANAGER,
      undefined,
      PatchStrategy.MergePatch,
      this.objectOptions(signal),
    );
  }

  /** Server-side apply, forcing ownership of the fields the operator manages. */
  async apply<T extends KubernetesObject>(object: T, signal?: AbortSignal): Promise<T> {
    this.note('apply', object.kind ?? '');
    return (await this.objects.patch(
      object,
      undefined,
      undefined,
      FIELD_MANAGER,
      true,
      PatchStrategy.ServerSideApply,
      this.objectOptions(signal),
    )) as T;
  }

  /** Deletes; an object already gone is success. */
  async delete(
    object: KubernetesObject,
    options: { gracePeriodSeconds?: number; propagation?: 'Foreground' | 'Background' | 'Orphan' } = {},
    signal?: AbortSignal,
  ): Promise<void> {
    this.note('delete', object.kind ?? '');
    await unlessNotFound(
      this.objects.delete(
        object,
        undefined,
        undefined,
        options.gracePeriodSeconds,
        undefined,
        options.propagation ?? 'Background',
        undefined,
        this.objectOptions(signal),
      ),
    );
  }

  /**
   * Replaces status through the status subresource, guarded by the resourceVersion that was
   * read: a concurrent change is a conflict, retried by the queue with a fresh read.
   */
  async replaceStatus(cluster: RedisCluster, status: RedisClusterStatus, signal?: AbortSignal): Promise<void> {
    this.note('patch', `${PLURAL}/status`);
    const { namespace = '', name = '' } = cluster.metadata;
    await this.custom
      .replaceNamespacedCustomObjectStatus(
        { group: GROUP, version: STORAGE_VERSION, namespace, plural: PLURAL, name, body: { ...cluster, status } },
        abortable(signal),
      )
      .catch(translate);
  }

  /** Sets metadata.finalizers, guarded by resourceVersion: a concurrent change is a conflict. */
  async setFinalizers(cluster: RedisCluster, finalizers: string[], signal?: AbortSignal): Promise<RedisCluster> {
    this.note('patch', PLURAL);
    const { namespace = '', name = '', resourceVersion } = cluster.metadata;
    return (await this.custom
      .patchNamespacedCustomObject(
        {
          group: GROUP,
          version: STORAGE_VERSION,
          namespace,
          plural: PLURAL,
          name,
          body: { metadata: { finalizers, resourceVersion } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch, abortable(signal)),
      )
      .catch(translate)) as RedisCluster;
  }

  /** Creates or bumps a core/v1 Event (events are aggregated by a name derived from their content). */
  async event(
    event: { name: string; namespace: string; body: Record<string, unknown> },
    signal?: AbortSignal,
  ): Promise<void> {
    try {
      this.note('create', 'events');
      await this.core.createNamespacedEvent(
        {
          namespace: event.namespace,
          body: { ...event.body, metadata: { name: event.name, namespace: event.namespace } } as never,
        },
        abortable(signal),
      );
    } catch (error) {
      if (!isConflict(error)) throw error;
      this.note('get', 'events');
      const existing = await this.core.readNamespacedEvent(
        { name: event.name, namespace: event.namespace },
        abortable(signal),
      );
      this.note('patch', 'events');
      await this.core.patchNamespacedEvent(
        {
          name: event.name,
          namespace: event.namespace,
          body: { count: (existing.count ?? 1) + 1, lastTimestamp: event.body.lastTimestamp },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch, abortable(signal)),
      );
    }
  }
}

function translate(error: unknown): never {
  if (isConflict(error))
    throw new ConflictError('the RedisCluster changed while it was being updated; retrying', { cause: error });
  throw error;
}

// The reconciler's door to the API server: reads, server-side apply under one field manager,
// deletes, the status subresource, finalizers with optimistic concurrency, and Events. It
// counts every request by verb, so a test can prove a steady cluster costs no writes.
// Adapters translate at the boundary: 404 on delete is success, 409 is a ConflictError.
import {
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesObject,
  type V1Node,
  type V1PersistentVolumeClaim,
  type V1Pod,
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

export class KubeClient {
  private readonly objects: KubernetesObjectApi;
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;

  constructor(
    kc: KubeConfig,
    private readonly counter?: RequestCounter,
    /** Watch-fed children and nodes (the worker's); observe reads them when it is synced. */
    readonly cache?: ChildCache,
  ) {
    this.objects = KubernetesObjectApi.makeApiClient(kc);
    this.core = kc.makeApiClient(CoreV1Api);
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  private note(verb: Verb, resource: string): void {
    this.counter?.count(verb, resource);
  }

  async getCluster(namespace: string, name: string): Promise<RedisCluster | undefined> {
    this.note('get', PLURAL);
    return (await unlessNotFound(
      this.custom.getNamespacedCustomObject({
        group: GROUP,
        version: STORAGE_VERSION,
        namespace,
        plural: PLURAL,
        name,
      }),
    )) as RedisCluster | undefined;
  }

  async read<T extends KubernetesObject>(
    apiVersion: string,
    kind: string,
    namespace: string,
    name: string,
  ): Promise<T | undefined> {
    this.note('get', kind);
    return (await unlessNotFound(this.objects.read({ apiVersion, kind, metadata: { name, namespace } }))) as
      T | undefined;
  }

  async listPods(namespace: string, labelSelector: string): Promise<V1Pod[]> {
    this.note('list', 'pods');
    return (await this.core.listNamespacedPod({ namespace, labelSelector })).items;
  }

  async listClaims(namespace: string, labelSelector: string): Promise<V1PersistentVolumeClaim[]> {
    this.note('list', 'persistentvolumeclaims');
    return (await this.core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector })).items;
  }

  async listNodes(): Promise<V1Node[]> {
    this.note('list', 'nodes');
    return (await this.core.listNode()).items;
  }

  async annotate(
    apiVersion: string,
    kind: string,
    namespace: string,
    name: string,
    annotations: Record<string, string>,
  ): Promise<void> {
    this.note('patch', kind);
    await this.objects.patch(
      { apiVersion, kind, metadata: { name, namespace, annotations } },
      undefined,
      undefined,
      FIELD_MANAGER,
      undefined,
      PatchStrategy.MergePatch,
    );
  }

  /** Server-side apply, forcing ownership of the fields the operator manages. */
  async apply<T extends KubernetesObject>(object: T): Promise<T> {
    this.note('apply', object.kind ?? '');
    return (await this.objects.patch(
      object,
      undefined,
      undefined,
      FIELD_MANAGER,
      true,
      PatchStrategy.ServerSideApply,
    )) as T;
  }

  /** Deletes; an object already gone is success. */
  async delete(
    object: KubernetesObject,
    options: { gracePeriodSeconds?: number; propagation?: 'Foreground' | 'Background' } = {},
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
      ),
    );
  }

  /**
   * Replaces status through the status subresource, guarded by the resourceVersion that was
   * read: a concurrent change is a conflict, retried by the queue with a fresh read.
   */
  async replaceStatus(cluster: RedisCluster, status: RedisClusterStatus): Promise<void> {
    this.note('patch', `${PLURAL}/status`);
    const { namespace = '', name = '' } = cluster.metadata;
    await this.custom
      .replaceNamespacedCustomObjectStatus({
        group: GROUP,
        version: STORAGE_VERSION,
        namespace,
        plural: PLURAL,
        name,
        body: { ...cluster, status },
      })
      .catch(translate);
  }

  /** Sets metadata.finalizers, guarded by resourceVersion: a concurrent change is a conflict. */
  async setFinalizers(cluster: RedisCluster, finalizers: string[]): Promise<RedisCluster> {
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
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )
      .catch(translate)) as RedisCluster;
  }

  /** Creates or bumps a core/v1 Event (events are aggregated by a name derived from their content). */
  async event(event: { name: string; namespace: string; body: Record<string, unknown> }): Promise<void> {
    try {
      this.note('create', 'events');
      await this.core.createNamespacedEvent({
        namespace: event.namespace,
        body: { ...event.body, metadata: { name: event.name, namespace: event.namespace } } as never,
      });
    } catch (error) {
      if (!isConflict(error)) throw error;
      this.note('get', 'events');
      const existing = await this.core.readNamespacedEvent({ name: event.name, namespace: event.namespace });
      this.note('patch', 'events');
      await this.core.patchNamespacedEvent(
        {
          name: event.name,
          namespace: event.namespace,
          body: { count: (existing.count ?? 1) + 1, lastTimestamp: event.body.lastTimestamp },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    }
  }
}

function translate(error: unknown): never {
  if (isConflict(error))
    throw new ConflictError('the RedisCluster changed while it was being updated; retrying', { cause: error });
  throw error;
}

// The ConfigMaps and Secrets pods read (volumes, env), from one watch each, as a kubelet's
// Watch change-detection strategy keeps them: a pod's volumes are refreshed when an object of
// its namespace changed, not by reading every object of every pod from the API server every
// few seconds (600 pods did 240 GETs a second that way, and starved the machine).
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { Logger } from '../../../shared/io/log.ts';
import { inform, type Informed, type KubeClients } from './kube.ts';

/** What a pod's volumes and env are made of: each key's bytes, or undefined when the object is missing. */
export interface ObjectSource {
  configMapData(namespace: string, name: string): Record<string, Buffer> | undefined;
  secretData(namespace: string, name: string): Record<string, Buffer> | undefined;
  configMap(namespace: string, name: string): V1ConfigMap | undefined;
  secret(namespace: string, name: string): V1Secret | undefined;
  /** Changes whenever a ConfigMap or Secret of the namespace was added, changed or deleted. */
  generation(namespace: string): number;
}

export class ObjectCache implements ObjectSource {
  private configMaps: Informed<V1ConfigMap> | undefined;
  private secrets: Informed<V1Secret> | undefined;
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly clients: KubeClients,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const bump = (_: unknown, obj: { metadata?: { namespace?: string } }) => {
      const ns = obj.metadata?.namespace ?? '';
      this.generations.set(ns, (this.generations.get(ns) ?? 0) + 1);
    };
    const configMaps = inform<V1ConfigMap>(
      this.clients,
      this.log,
      '/api/v1/configmaps',
      () => this.clients.core.listConfigMapForAllNamespaces(),
      bump,
    );
    const secrets = inform<V1Secret>(
      this.clients,
      this.log,
      '/api/v1/secrets',
      () => this.clients.core.listSecretForAllNamespaces(),
      bump,
    );
    this.configMaps = configMaps;
    this.secrets = secrets;
    await Promise.all([configMaps.started, secrets.started]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.configMaps?.stop(), this.secrets?.stop()]);
  }

  configMap(namespace: string, name: string): V1ConfigMap | undefined {
    return this.configMaps?.get(name, namespace);
  }

  secret(namespace: string, name: string): V1Secret | undefined {
    return this.secrets?.get(name, namespace);
  }

  configMapData(namespace: string, name: string): Record<string, Buffer> | undefined {
    const cm = this.configMap(namespace, name);
    if (!cm) return undefined;
    return Object.fromEntries([
      ...Object.entries(cm.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'utf8')] as const),
      ...Object.entries(cm.binaryData ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')] as const),
    ]);
  }

  secretData(namespace: string, name: string): Record<string, Buffer> | undefined {
    const secret = this.secret(namespace, name);
    if (!secret) return undefined;
    return Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')] as const),
    );
  }

  generation(namespace: string): number {
    return this.generations.get(namespace) ?? 0;
  }
}

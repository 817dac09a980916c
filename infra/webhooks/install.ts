// Installs the RedisCluster API on an API server that calls the webhooks at a URL (the local
// environment, tests): the CRDs (RedisCluster with its conversion webhook, RedisClusterBackup), then the validating webhook.
// Applied with kubectl server-side apply, not @kubernetes/client-node: the client's typed
// serializer drops JSONSchemaProps' `enum`, `default` and `x-kubernetes-validations`.
import { redisClusterBackupCrd } from '../../shared/core/api/backup-crd.ts';
import { redisClusterCrd } from '../../shared/core/api/crd.ts';
import { validatingWebhookConfiguration } from '../../shared/core/api/webhook-registration.ts';

export interface Kubectl {
  (args: string[], options?: { input?: string }): Promise<string>;
}

export interface ApiTarget {
  /** https://127.0.0.1:PORT of the webhook server. */
  url: string;
  /** base64 PEM of the CA that signed its certificate. */
  caBundle: string;
}

const apply = (kubectl: Kubectl, obj: object) =>
  kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager', 'knredis', '-f', '-'], {
    input: JSON.stringify(obj),
  });

export async function installRedisClusterApi(
  kubectl: Kubectl,
  target: ApiTarget,
  configurationName?: string,
): Promise<void> {
  await apply(kubectl, redisClusterCrd(target));
  await apply(kubectl, redisClusterBackupCrd());
  await waitEstablished(kubectl, 'redisclusters.cache.redis.io');
  await waitEstablished(kubectl, 'redisclusterbackups.cache.redis.io');
  await apply(kubectl, validatingWebhookConfiguration(target, configurationName));
}

export async function uninstallValidatingWebhook(kubectl: Kubectl, configurationName: string): Promise<void> {
  await kubectl(['delete', 'validatingwebhookconfiguration', configurationName, '--ignore-not-found']);
}

/**
 * `kubectl wait --for condition=Established` fails at once ("status.conditions accessor
 * error") while a just-created CRD has no conditions yet: try again until the deadline.
 */
async function waitEstablished(kubectl: Kubectl, crd: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await kubectl(['wait', '--for', 'condition=Established', '--timeout', '60s', `crd/${crd}`]);
      return;
    } catch (error) {
      if (Date.now() > deadline || !/conditions|accessor|not found/i.test((error as Error).message)) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

// Where the API server reaches the webhooks. In a cluster: the Service knredis-webhooks in
// knredis-system (port 443), with cert-manager injecting the CA. In the local environment and
// in tests: a URL on loopback, since the API server runs as a local process, not in a pod.
export const WEBHOOK_NAMESPACE = 'knredis-system';
const WEBHOOK_SERVICE = 'knredis-webhooks';
export const WEBHOOK_CERTIFICATE = 'knredis-webhooks';
export const CONVERT_PATH = '/convert';
export const VALIDATE_PATH = '/validate';
/** Makes cert-manager's CA injector fill the caBundle of the CRD and the webhook configuration. */
export const CERT_MANAGER_INJECT_ANNOTATION = 'cert-manager.io/inject-ca-from';

export type WebhookTarget =
  | { url: string; caBundle?: string }
  | { service: { namespace: string; name: string; port?: number }; caBundle?: string };

export const inClusterTarget: WebhookTarget = {
  service: { namespace: WEBHOOK_NAMESPACE, name: WEBHOOK_SERVICE, port: 443 },
};

/** The clientConfig of a webhook at `path` (url joined, or the service's path). */
export function clientConfig(target: WebhookTarget, path: string): Record<string, unknown> {
  const ca = target.caBundle ? { caBundle: target.caBundle } : {};
  if ('url' in target) return { url: target.url.replace(/\/$/, '') + path, ...ca };
  return { service: { ...target.service, path }, ...ca };
}

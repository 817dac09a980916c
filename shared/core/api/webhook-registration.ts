// The ValidatingWebhookConfiguration of RedisCluster.
//
// failurePolicy: Fail, deliberately. The webhook refuses changes that lose data or that the
// operator cannot carry out (a scale-in of more than half the masters, a Redis downgrade);
// with Ignore, an outage of the webhook would let exactly those through. The cost is that
// RedisCluster writes fail while the webhook is down, which they would anyway: the same server
// converts v1alpha1 <-> v1beta1. The rules match only redisclusters (and their scale), so an
// outage never blocks other resources, and the webhook's own pods are never RedisClusters.
import { GROUP, PLURAL, V1ALPHA1, V1BETA1 } from './group.ts';
import {
  CERT_MANAGER_INJECT_ANNOTATION,
  VALIDATE_PATH,
  WEBHOOK_CERTIFICATE,
  WEBHOOK_NAMESPACE,
  clientConfig,
  inClusterTarget,
  type WebhookTarget,
} from './webhook-client.ts';

const VALIDATING_WEBHOOK_NAME = `validate.${PLURAL}.${GROUP}`;
const VALIDATING_CONFIGURATION_NAME = `knredis-${PLURAL}`;

export function validatingWebhookConfiguration(
  target: WebhookTarget = inClusterTarget,
  name = VALIDATING_CONFIGURATION_NAME,
): Record<string, unknown> {
  const inCluster = !('url' in target) && !target.caBundle;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: {
      name,
      ...(inCluster
        ? { annotations: { [CERT_MANAGER_INJECT_ANNOTATION]: `${WEBHOOK_NAMESPACE}/${WEBHOOK_CERTIFICATE}` } }
        : {}),
    },
    webhooks: [
      {
        name: VALIDATING_WEBHOOK_NAME,
        admissionReviewVersions: ['v1'],
        clientConfig: clientConfig(target, VALIDATE_PATH),
        // Both versions: a v1alpha1 request is checked in v1alpha1 (its annotation and its
        // replicas count), a v1beta1 one in v1beta1; Equivalent catches any future version.
        rules: [
          {
            apiGroups: [GROUP],
            apiVersions: [V1ALPHA1, V1BETA1],
            operations: ['CREATE', 'UPDATE'],
            resources: [PLURAL, `${PLURAL}/scale`],
            scope: 'Namespaced',
          },
        ],
        matchPolicy: 'Equivalent',
        failurePolicy: 'Fail',
        sideEffects: 'None',
        timeoutSeconds: 5,
      },
    ],
  };
}

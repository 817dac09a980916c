// The TokenReview call (authentication.k8s.io/v1) behind ./sender-auth.ts. Ingest's
// ServiceAccount needs `create` on tokenreviews (infra/rbac/permissions.ts).
import { AuthenticationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { ReviewToken } from './sender-auth.ts';

export function kubeTokenReview(kc: KubeConfig): ReviewToken {
  const api = kc.makeApiClient(AuthenticationV1Api);
  return async (token, audience) => {
    const { status } = await api.createTokenReview({
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences: [audience] } },
    });
    return {
      authenticated: status?.authenticated === true,
      username: status?.user?.username,
      audiences: status?.audiences,
    };
  };
}

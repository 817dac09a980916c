// Names a process in the API server's audit log and metrics: every request made through this
// KubeConfig (typed APIs, KubernetesObjectApi, watches) carries the User-Agent. client-node
// has no setting for it; both of its request paths take their headers from applyOptions.
import type { KubeConfig } from '@kubernetes/client-node';

type Options = { headers?: Record<string, string | string[] | number> };

export function withUserAgent(kc: KubeConfig, userAgent: string): KubeConfig {
  const patched = kc as unknown as { applyOptions(opts: Options): Promise<void> };
  const base = patched.applyOptions.bind(kc);
  patched.applyOptions = async (opts) => {
    await base(opts);
    opts.headers = { ...opts.headers, 'User-Agent': userAgent };
  };
  return kc;
}

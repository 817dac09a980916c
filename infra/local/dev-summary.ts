// What `npm run dev` prints once the sample is Ready: where to look and commands to paste.
// Never the password itself: the redis-cli command reads it from the Secret.

export interface DevSummary {
  readonly envName: string;
  readonly kubeconfig: string;
  readonly kubectl: string;
  readonly dashboard: string;
  readonly dashboardToken: boolean;
  readonly metrics: readonly string[];
  readonly logsDir: string;
  readonly envLogsDir: string;
  /** The sample's name and namespace, when one was applied. */
  readonly sample?: { readonly name: string; readonly namespace: string; readonly secret: string };
  /** The environment is left running on exit. */
  readonly keepsEnvironment: boolean;
}

export const READY_BANNER = 'knredis is running';

export function devSummary(s: DevSummary): string {
  const k = `KUBECONFIG=${s.kubeconfig} ${s.kubectl}`;
  const ns = s.sample && s.sample.namespace !== 'default' ? ` -n ${s.sample.namespace}` : '';
  const lines = [
    '',
    `${READY_BANNER} (local environment '${s.envName}')`,
    '',
    `  dashboard   ${s.dashboard}   ${s.dashboardToken ? '(bearer token: $DASHBOARD_TOKEN, as you set it)' : '(no token: DASHBOARD_AUTH=none on loopback; set DASHBOARD_TOKEN to require one)'}`,
    `  clusters    ${s.dashboard.replace(/\/admin\/queues$/, '/admin/clusters')}   (one row per RedisCluster: phase, progress, last runs)`,
    ...s.metrics.map((m, i) => `  ${i === 0 ? 'metrics   ' : '          '}  ${m}`),
    `  kubeconfig  ${s.kubeconfig}`,
    `  kubectl     ${s.kubectl}`,
    `  logs        ${s.logsDir}/  (operator)   ${s.envLogsDir}/  (Kubernetes)`,
    '',
    'try:',
    `  ${k} get redisclusters${ns}`,
    `  ${k} get pods -o wide${ns}`,
  ];
  if (s.sample) {
    const secret = `$(${k} get secret ${s.sample.secret}${ns} -o jsonpath='{.data.password}' | base64 -d)`;
    const podIp = `$(${k} get pod ${s.sample.name}-0${ns} -o jsonpath='{.status.podIP}')`;
    lines.push(
      `  ${k} scale rediscluster ${s.sample.name} --replicas=6${ns}      # 6 masters (the scale subresource counts masters)`,
      `  ${k} describe rediscluster ${s.sample.name}${ns}                # conditions and Events`,
      `  REDISCLI_AUTH="${secret}" redis-cli -c -h ${podIp} -p 6379 cluster info`,
    );
  }
  lines.push(
    '',
    s.keepsEnvironment
      ? `Ctrl-C stops the operator; the local environment '${s.envName}' keeps running (npm run local:down -- --name ${s.envName}).`
      : `Ctrl-C stops the operator and the local environment '${s.envName}'.`,
  );
  return lines.join('\n');
}

// What `npm run dev` prints once the sample is Ready: where to look and commands to paste.
// Never the password itself: the redis-cli command reads it from the Secret.

export interface DevSummary {
  readonly envName: string;
  readonly kubeconfig: string;
  readonly kubectl: string;
  readonly dashboard: string;
  readonly dashboardToken: boolean;
  readonly metrics: readonly string[];
  /** The operator's processes' logs (absent in-cluster: its pods' logs are kubectl's). */
  readonly logsDir?: string;
  readonly envLogsDir: string;
  /** The operator runs in the environment (`--in-cluster`): its namespace and the dashboard's Secret. */
  readonly inCluster?: { readonly namespace: string; readonly tokenSecret: string };
  /** The sample's name and namespace, when one was applied. */
  readonly sample?: { readonly name: string; readonly namespace: string; readonly secret: string };
  /** The environment is left running on exit. */
  readonly keepsEnvironment: boolean;
}

export const READY_BANNER = 'knredis is running';

export function devSummary(s: DevSummary): string {
  const k = `KUBECONFIG=${s.kubeconfig} ${s.kubectl}`;
  const ns = s.sample && s.sample.namespace !== 'default' ? ` -n ${s.sample.namespace}` : '';
  const inCluster = s.inCluster;
  const token = s.dashboardToken
    ? '(bearer token: $DASHBOARD_TOKEN, as you set it)'
    : inCluster
      ? `(bearer token: ${k} -n ${inCluster.namespace} get secret ${inCluster.tokenSecret} -o jsonpath='{.data.token}' | base64 -d)`
      : '(no token: DASHBOARD_AUTH=none on loopback; set DASHBOARD_TOKEN to require one)';
  const logs = inCluster
    ? `${k} -n ${inCluster.namespace} logs deploy/knredis-reconcile  (operator)`
    : `${s.logsDir}/  (operator)`;
  const lines = [
    '',
    `${READY_BANNER} (local environment '${s.envName}'${inCluster ? `, the operator in its namespace ${inCluster.namespace}` : ''})`,
    '',
    `  dashboard   ${s.dashboard}   ${token}`,
    `  clusters    ${s.dashboard.replace(/\/admin\/queues$/, '/admin/clusters')}   (one row per RedisCluster: phase, progress, last runs)`,
    ...s.metrics.map((m, i) => `  ${i === 0 ? 'metrics   ' : '          '}  ${m}`),
    `  kubeconfig  ${s.kubeconfig}`,
    `  kubectl     ${s.kubectl}`,
    `  logs        ${logs}   ${s.envLogsDir}/  (Kubernetes)`,
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
  const down = `npm run local:down -- --name ${s.envName}`;
  lines.push(
    '',
    inCluster
      ? s.keepsEnvironment
        ? `Ctrl-C stops this command; the local environment '${s.envName}' keeps running, the operator in it (${down}).`
        : `Ctrl-C stops the local environment '${s.envName}' and the operator in it.`
      : s.keepsEnvironment
        ? `Ctrl-C stops the operator; the local environment '${s.envName}' keeps running (${down}).`
        : `Ctrl-C stops the operator and the local environment '${s.envName}'.`,
  );
  return lines.join('\n');
}

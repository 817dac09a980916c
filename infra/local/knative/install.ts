// Installs Knative into a running local environment (`npm run local:up -- --knative`, and the
// Knative tests): the CRDs, ConfigMaps and webhook configurations of Eventing and Serving, and
// both webhooks as processes of the environment (stopped by local:down). Idempotent: webhooks
// that run are kept. Needs an environment started with a loopback Service range.
import { join } from 'node:path';
import type { Progress } from '../binaries.ts';
import { kubectlOf, type Kubectl } from '../kubectl.ts';
import { ephemeralPort } from '../ports.ts';
import { isRunning, spawnDetached } from '../processes.ts';
import { waitReady } from '../readiness.ts';
import { allStates, readState, writeState, type EnvState } from '../state.ts';
import { ensureKnative } from './binaries.ts';
import {
  clusterIpOf,
  knativeWebhooks,
  webhookEnv,
  webhookManifests,
  webhookProbe,
  webhookService,
  type KnativeWebhook,
} from './webhooks.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function installKnative(name: string, progress: Progress = () => {}): Promise<EnvState> {
  const build = await ensureKnative(progress);
  let state = readState(name);
  if (!state) throw new Error(`no local environment '${name}'`);
  if (!state.serviceCidr)
    throw new Error(
      `environment '${name}' has no loopback Service range, so Knative's webhooks cannot be reached: start it with --knative (npm run local:down -- --name ${name}; npm run local:up -- --name ${name} --knative)`,
    );
  const kubectl = kubectlOf(state);
  for (const webhook of knativeWebhooks) {
    const running = state.processes[webhook.component];
    if (running && isRunning(running.pid, running.match) && state.knative?.webhooks[webhook.component]) continue;
    state = await startWebhook(state, webhook, kubectl, build, progress);
  }
  return state;
}

async function startWebhook(
  state: EnvState,
  webhook: KnativeWebhook,
  kubectl: Kubectl,
  build: Awaited<ReturnType<typeof ensureKnative>>,
  progress: Progress,
): Promise<EnvState> {
  // 1: a port no other environment's webhook uses (they listen on every interface).
  const taken = new Set(
    allStates().flatMap((s) => [
      ...Object.values(s.ports ?? {}),
      ...Object.values(s.knative?.webhooks ?? {}).map((w) => w.port),
    ]),
  );
  let port = await ephemeralPort();
  while (taken.has(port)) port = await ephemeralPort();
  const clusterIP = clusterIpOf(state.serviceCidr!, webhook.host);
  // 2: the namespace, CRDs, ConfigMaps, configurations and the Service, server-side (the
  // CRDs are too large for kubectl's last-applied annotation).
  progress(`Knative ${webhook.part}: CRDs, ConfigMaps and webhook configurations (${build.version})`);
  const objects = [...webhookManifests(build, webhook, port), webhookService(webhook, clusterIP, port)];
  await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=knredis-local', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
  });
  // 3: the webhook process, recorded in state.json like the control plane's.
  progress(`Knative ${webhook.part}: ${webhook.binary} on ${clusterIP}:${port}`);
  const log = join(state.dir, 'logs', `${webhook.component}.log`);
  const env = { ...process.env, KUBECONFIG: state.kubeconfig, ...webhookEnv(webhook, port, await ephemeralPort()) };
  const pid = spawnDetached(build.bin(webhook.binary), ['--kubeconfig', state.kubeconfig], log, env);
  const fresh = readState(state.name) ?? state;
  fresh.processes[webhook.component] = { pid, match: `${state.dir}/`, log };
  fresh.knative = {
    version: build.version,
    webhooks: { ...fresh.knative?.webhooks, [webhook.component]: { clusterIP, port } },
  };
  await writeState(fresh);
  await waitReady({ ...webhookProbe(fresh, webhook.component), pid, match: `${state.dir}/`, log }, 120_000);
  // 4: admission works once the webhook wrote its caBundle into its configurations.
  const configurations = webhookManifests(build, webhook, port).filter((o) => o.kind?.endsWith('WebhookConfiguration'));
  for (const c of configurations) {
    const kind = c.kind!.toLowerCase();
    for (let i = 0; ; i++) {
      const ca = await kubectl(['get', kind, c.metadata!.name!, '-o', 'jsonpath={.webhooks[0].clientConfig.caBundle}']);
      if (ca.trim()) break;
      if (i > 600)
        throw new Error(`${webhook.binary} did not set the caBundle of ${c.metadata!.name} within 60s; see ${log}`);
      await sleep(100);
    }
  }
  return fresh;
}

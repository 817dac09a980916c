// cert-manager in a running local environment (`npm run local:up -- --cert-manager`, and the
// in-cluster e2e): its CRDs, and its controller and CA injector (build-cert-manager.sh) as
// processes of the environment, so that the overlays' Certificate gives the webhooks their
// serving certificate and the injector writes its CA into the webhook configuration and the
// CRD, as in a cluster. Their command lines name the environment's directory, so local:down
// stops them with the rest.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runBuildScript, type Progress } from './binaries.ts';
import { kubectlOf } from './kubectl.ts';
import { cacheDir, localDir, versionOf } from './paths.ts';
import { processesMentioning, spawnDetached } from './processes.ts';
import type { EnvState } from './state.ts';

function certManagerDir(): string {
  return join(cacheDir(), `cert-manager-${versionOf('CERT_MANAGER_VERSION')}`);
}

function built(): boolean {
  const dir = certManagerDir();
  return ['bin/controller', 'bin/cainjector', 'crds.yaml'].every((f) => existsSync(join(dir, f)));
}

/** Builds cert-manager first when it is missing (the first time: about 4 minutes on 2 cores). */
async function ensureCertManager(progress: Progress): Promise<string> {
  if (!built()) {
    progress(`building cert-manager with go build (first time only); it goes to ${certManagerDir()}`);
    await runBuildScript(join(localDir, 'build-cert-manager.sh'), progress, built);
  }
  return certManagerDir();
}

export async function installCertManager(state: EnvState, progress: Progress = () => {}): Promise<void> {
  const dir = await ensureCertManager(progress);
  const kubectl = kubectlOf(state);
  progress(`cert-manager ${versionOf('CERT_MANAGER_VERSION')}: CRDs`);
  await kubectl([
    'apply',
    '--server-side',
    '--force-conflicts',
    '--field-manager=knredis-local',
    '-f',
    join(dir, 'crds.yaml'),
  ]);
  await kubectl([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd',
    '-l',
    'app.kubernetes.io/name=cert-manager',
  ]);
  // Once per environment: a second install keeps the controller and injector that run.
  const ofEnvironment = new Set(processesMentioning(`${state.dir}/`));
  if (processesMentioning(join(dir, 'bin')).filter((pid) => ofEnvironment.has(pid)).length >= 2) return;
  progress('cert-manager: controller and CA injector');
  const common = ['--kubeconfig', state.kubeconfig, '--leader-elect=false'];
  spawnDetached(
    join(dir, 'bin', 'controller'),
    [...common, '--cluster-resource-namespace=kube-system'],
    join(state.dir, 'logs', 'cert-manager-controller.log'),
  );
  spawnDetached(join(dir, 'bin', 'cainjector'), common, join(state.dir, 'logs', 'cert-manager-cainjector.log'));
}

// The kustomize overlays of infra/overlays, built with the built kubectl (`kubectl kustomize`),
// as plain objects, and the namespace they deploy into.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);

export const runtimes = ['kubernetes', 'knative'] as const;
export const NAMESPACE = 'knredis-system';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export function overlayDir(runtime: string): string {
  return fileURLToPath(new URL(`../../../infra/overlays/${runtime}`, import.meta.url));
}

export async function buildOverlay(kubectl: string, runtime: string): Promise<{ yaml: string; objects: K8sObject[] }> {
  const { stdout } = await run(kubectl, ['kustomize', overlayDir(runtime)], { maxBuffer: 64 * 1024 * 1024 });
  const objects = parseAllDocuments(stdout)
    .map((d) => d.toJSON() as K8sObject)
    .filter((o) => o !== null);
  return { yaml: stdout, objects };
}

export const find = (objects: K8sObject[], kind: string, name: string): K8sObject | undefined =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);

/** A workload's pod template spec: Deployments, StatefulSets and Knative Services alike. */
export function podSpecOf(o: K8sObject):
  | {
      serviceAccountName?: string;
      containers: {
        image: string;
        args?: string[];
        env?: { name: string }[];
        envFrom?: { configMapRef?: { name: string } }[];
      }[];
    }
  | undefined {
  const spec = o.spec as { template?: { spec?: unknown } } | undefined;
  return spec?.template?.spec as ReturnType<typeof podSpecOf>;
}

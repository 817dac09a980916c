// Kubeconfig files of one environment: one per identity, certificates embedded so a file
// can be copied or read by any client without the certs directory.
import { readFile, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { KeyPair } from './certs.ts';

export async function writeKubeconfig(
  path: string,
  options: { name: string; server: string; caCert: string; client: KeyPair; user: string },
): Promise<string> {
  const b64 = async (file: string) => (await readFile(file)).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: options.name,
        cluster: { server: options.server, 'certificate-authority-data': await b64(options.caCert) },
      },
    ],
    users: [
      {
        name: options.user,
        user: {
          'client-certificate-data': await b64(options.client.cert),
          'client-key-data': await b64(options.client.key),
        },
      },
    ],
    contexts: [{ name: options.name, context: { cluster: options.name, user: options.user } }],
    'current-context': options.name,
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
  return path;
}

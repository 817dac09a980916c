// The pods' start script run as the local kubelet runs it, all but its exec: by sh, with the
// pod's paths (Secret, scratch run dir, redis.conf, data volume) mapped under one directory.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mapPaths } from '../../infra/local/kubelet/path-map.ts';
import { redisStartScript } from '../../shared/core/resources/redis-command.ts';
import { AUTH_PATH, CONFIG_PATH, DATA_PATH, RUN_PATH } from '../../shared/core/resources/names.ts';

export interface StartScriptRun {
  readonly password: string;
  /** The data volume (nodes.conf): `<dir>/data` unless given. */
  readonly dataDir?: string;
  readonly redisConf?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/** Runs the script with its paths under `dir`; returns where a pod path landed. */
export async function runStartScript(dir: string, run: StartScriptRun): Promise<(podPath: string) => string> {
  const mappings = [
    { mountPath: AUTH_PATH, hostPath: join(dir, 'auth') },
    { mountPath: RUN_PATH, hostPath: join(dir, 'run') },
    { mountPath: CONFIG_PATH, hostPath: join(dir, 'conf') },
    { mountPath: DATA_PATH, hostPath: run.dataDir ?? join(dir, 'data') },
  ];
  for (const m of mappings) await mkdir(m.hostPath, { recursive: true });
  await writeFile(join(dir, 'auth', 'password'), run.password);
  await writeFile(join(dir, 'conf', 'redis.conf'), run.redisConf ?? '');
  const script = redisStartScript()
    .split('\n')
    .filter((l) => !l.startsWith('exec '))
    .join('\n');
  await promisify(execFile)('sh', ['-c', mapPaths(script, mappings)], {
    env: { PATH: process.env.PATH, ...run.env },
  });
  return (podPath) => mapPaths(podPath, mappings);
}

// Allocation of what two environments must not share: loopback ports and the 127.X.0.0/16
// prefix of pod addresses. Done under a lock file so environments started at the same time
// (by several processes, or by one) get distinct values; they are then recorded in state.json.
import { createServer } from 'node:net';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { envsDir } from './paths.ts';
import type { EnvState, Ports } from './state.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs fn holding `<envs>/.alloc.lock` (O_EXCL create; a lock older than 60s is stale). */
export async function withAllocationLock<T>(fn: () => Promise<T>): Promise<T> {
  await mkdir(envsDir(), { recursive: true });
  const lock = join(envsDir(), '.alloc.lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const handle = await open(lock, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > 60_000) await rm(lock, { force: true });
      if (Date.now() > deadline)
        throw new Error(`could not take ${lock} within 120s (remove it if no local:up is running)`, { cause: error });
      await sleep(20 + Math.random() * 50);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}

/** A port the kernel reports free on 127.0.0.1 now. */
export function ephemeralPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export async function allocatePorts(live: EnvState[]): Promise<Ports> {
  const taken = new Set(live.flatMap((s) => Object.values(s.ports ?? {})));
  const pick = async () => {
    for (let i = 0; i < 100; i++) {
      const port = await ephemeralPort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
    throw new Error('no free loopback port found');
  };
  return {
    etcd: await pick(),
    etcdPeer: await pick(),
    apiserver: await pick(),
    controllerManager: await pick(),
    scheduler: await pick(),
    kubeletControl: await pick(),
  };
}

/** `127.X` with X in 100..254 not used by a live environment (127.0.x stays for everything else). */
export function allocatePodIpPrefix(live: EnvState[]): string {
  const used = new Set(live.map((s) => s.podIpPrefix));
  for (let x = 100; x <= 254; x++) if (!used.has(`127.${x}`)) return `127.${x}`;
  throw new Error(
    'every pod IP prefix 127.100-127.254 is used by a live environment: stop some (npm run local:down -- --name N)',
  );
}

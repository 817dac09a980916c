// Writes the table of redis.conf settings the validating webhook checks spec.config against,
// learnt from the redis-server on this machine rather than typed by hand:
//   - the keys: CONFIG GET * of a scratch server (aliases such as slave-read-only included);
//   - the kind of each value: each key is given a value no setting accepts
//     (`<key> knredis-probe`) in a config file read by `redis-server -`, the same parser that
//     reads the nodes' redis.conf; the server's refusal names the kind ("argument must be 'yes'
//     or 'no'", "must be one of the following: ...", "a memory value", ...), and an integer is
//     probed again out of range to learn its bounds. A key that takes the probe is free text;
//   - restart-only keys: CONFIG SET of the current value on the scratch server answers "can't
//     set immutable config" (or protected) for settings that need a restart.
// The table records the server's version; one file per minor version, in
// shared/core/api/redis-config/. A test regenerates it from the installed redis-server and
// compares it with the committed file, like the CRD's check. Run after installing another
// Redis:  npx tsx infra/redis/generate-config-keys.ts [path/to/redis-server]
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import type { ConfigKeySpec, ConfigTable } from '../../shared/core/api/redis-config/table.ts';

const PROBE = 'knredis-probe';
/** Setting these, even to their current value, re-binds listeners or starts replication: not probed live. */
const UNPROBED_LIVE = new Set(['port', 'tls-port', 'bind', 'bind-source-addr', 'replicaof', 'slaveof']);
const END = 'knredis-probe-end';

/** What redis-server says about `<key> <value>` in its config file; undefined when it takes the value. */
function refusal(redisServer: string, key: string, value: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    // A directive that never exists comes last: reaching it proves the probed line was taken,
    // and the server stops there instead of starting.
    const child = execFile(redisServer, ['-'], { timeout: 10_000 }, (error, stdout, stderr) => {
      const out = `${stdout}${stderr}`;
      const match = /^>>> '(.*)'\n(.*)$/m.exec(out);
      if (!match)
        return reject(
          new Error(`${redisServer} gave no config error for ${key} ${value}: ${error?.message ?? ''}\n${out}`),
        );
      resolve(match[1]!.startsWith(`${END} `) ? undefined : match[2]!.trim());
    });
    child.stdin?.end(`port 0\n${key} ${value}\n${END} 1\n`);
  });
}

async function probeKind(redisServer: string, key: string): Promise<ConfigKeySpec> {
  const message = await refusal(redisServer, key, PROBE);
  if (message === undefined) return { kind: 'string' };
  if (message === "argument must be 'yes' or 'no'") return { kind: 'boolean' };
  const oneOf = /^argument\(s\) must be one of the following: (.*)$/.exec(message);
  if (oneOf) return { kind: 'enum', values: oneOf[1]!.split(', ') };
  if (message === 'argument must be a memory value') return { kind: 'memory' };
  if (message === 'argument must be a memory or percent value') return { kind: 'memory-or-percent' };
  if (message === "argument couldn't be parsed as an octal number") return { kind: 'octal' };
  if (message === "argument couldn't be parsed into an integer") {
    for (const outside of ['-99999999999999999', '99999999999999999']) {
      const range = /^argument must be between (-?\d+) and (-?\d+) inclusive$/.exec(
        (await refusal(redisServer, key, outside)) ?? '',
      );
      // As strings: the bounds of a 64-bit setting are beyond a JavaScript number's precision.
      if (range) return { kind: 'integer', min: range[1]!, max: range[2]! };
    }
    return { kind: 'integer' };
  }
  // save, notify-keyspace-events, client-output-buffer-limit, ...: a syntax of their own, left
  // to Redis (the message is kept so the table shows why).
  return { kind: 'other', check: message };
}

/** fn over items, at most `limit` at a time (each probe is a short-lived redis-server). */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return out;
}

async function startScratch(redisServer: string, dir: string): Promise<{ redis: Redis; stop: () => Promise<void> }> {
  const socket = join(dir, 'redis.sock');
  const child = spawn(redisServer, ['-'], { cwd: dir, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.end(`port 0\nunixsocket ${socket}\nunixsocketperm 700\nsave ""\nappendonly no\n`);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  for (let i = 0; !existsSync(socket); i++) {
    if (i > 200 || child.exitCode !== null) throw new Error(`${redisServer} did not open ${socket}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const redis = new Redis({ path: socket, maxRetriesPerRequest: 0 });
  return {
    redis,
    stop: async () => {
      redis.disconnect();
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export async function generateConfigTable(redisServer = 'redis-server'): Promise<ConfigTable> {
  const dir = await mkdtemp(join(tmpdir(), 'knredis-config-keys-'));
  const scratch = await startScratch(redisServer, dir);
  try {
    const version = /redis_version:(\S+)/.exec(await scratch.redis.info('server'))![1]!;
    const flat = (await scratch.redis.config('GET', '*')) as string[];
    const current = new Map<string, string>();
    for (let i = 0; i < flat.length; i += 2) current.set(flat[i]!, flat[i + 1]!);
    const names = [...current.keys()].sort();
    const specs = await mapLimited(names, 4, (key) => probeKind(redisServer, key));
    const keys: Record<string, ConfigKeySpec> = {};
    for (const [i, key] of names.entries()) {
      const spec = specs[i]!;
      if (!UNPROBED_LIVE.has(key)) {
        const restart = await scratch.redis.config('SET', key, current.get(key)!).then(
          () => false,
          (e: Error) => /immutable|protected/.test(e.message),
        );
        if (restart) spec.restartOnly = true;
      }
      keys[key] = spec;
    }
    return { version, keys };
  } finally {
    await scratch.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The minor version a table is filed under: 7.0.15 -> 7.0. */
export const minorOf = (version: string) => version.split('.').slice(0, 2).join('.');

export const tableFile = (version: string) => `shared/core/api/redis-config/redis-${minorOf(version)}.ts`;

export function renderTable(table: ConfigTable): string {
  const name = `REDIS_${minorOf(table.version).replace('.', '_')}`;
  const lines = Object.entries(table.keys).map(([key, spec]) => `    ${JSON.stringify(key)}: ${JSON.stringify(spec)},`);
  return (
    `// redis.conf settings of Redis ${table.version}, generated by infra/redis/generate-config-keys.ts from\n` +
    '// the redis-server it was run with: do not edit by hand (see README.md here).\n' +
    "import type { ConfigTable } from './table.ts';\n\n" +
    `export const ${name}: ConfigTable = {\n  version: ${JSON.stringify(table.version)},\n  keys: {\n${lines.join('\n')}\n  },\n};\n`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const table = await generateConfigTable(process.argv[2]);
  const path = tableFile(table.version);
  await writeFile(fileURLToPath(new URL(`../../${path}`, import.meta.url)), renderTable(table));
  console.log(`wrote ${path} (${Object.keys(table.keys).length} settings of Redis ${table.version})`);
}

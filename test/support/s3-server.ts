// A real S3-compatible server for tests: SeaweedFS (`weed server -s3`: master, volume server,
// filer and S3 gateway in one process) built by infra/local/build-seaweedfs.sh, in its own temp
// directory on free loopback ports, with generated credentials and one bucket. A missing binary
// fails the test with how to build it: never a skip.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { seaweedBinary } from '../../infra/local/paths.ts';
import { freePort } from './redis-server.ts';
import { waitFor } from './wait-for.ts';

export interface S3Server {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  /** The server's log, for a failing test to show. */
  logFile: string;
  pid: number;
  stop(): Promise<void>;
}

const host = '127.0.0.1';
const region = 'us-east-1';
/** Master, volume server, filer and S3 gateway each listen on an HTTP and a gRPC port. */
const portFlags = [
  'master.port',
  'master.port.grpc',
  'volume.port',
  'volume.port.grpc',
  'filer.port',
  'filer.port.grpc',
  's3.port',
  's3.port.grpc',
] as const;

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort(host));
  return [...ports];
}

export interface S3ServerOptions {
  /** Serve S3 over TLS with this certificate (its CA, for the server's own readiness checks). */
  tls?: { cert: string; key: string; ca: string };
}

export async function startS3Server(options: S3ServerOptions = {}): Promise<S3Server> {
  const binary = seaweedBinary();
  if (!existsSync(binary))
    throw new Error(`prerequisite missing: ${binary} (build it with: bash infra/local/build-seaweedfs.sh)`);
  const dir = await mkdtemp(join(tmpdir(), 'knredis-s3-'));
  const accessKeyId = `knredis${randomBytes(8).toString('hex')}`;
  const secretAccessKey = randomBytes(30).toString('base64url');
  const bucket = `test-${randomBytes(4).toString('hex')}`;
  // Credentials go in a file (0600), not in argv where any process listing shows them.
  const config = join(dir, 's3.json');
  const identity = {
    name: 'knredis-test',
    credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }],
    actions: ['Admin', 'Read', 'List', 'Tagging', 'Write'],
  };
  await writeFile(config, JSON.stringify({ identities: [identity] }), { mode: 0o600 });

  const ports = await distinctFreePorts(portFlags.length);
  const port = Object.fromEntries(portFlags.map((flag, i) => [flag, ports[i]])) as Record<
    (typeof portFlags)[number],
    number
  >;
  const args = [
    'server',
    `-dir=${dir}`,
    `-ip=${host}`,
    `-ip.bind=${host}`,
    ...portFlags.map((flag) => `-${flag}=${port[flag]}`),
    '-filer',
    '-s3',
    `-s3.config=${config}`,
    `-filer.localSocket=${join(dir, 'filer.sock')}`,
    `-s3.localSocket=${join(dir, 's3.sock')}`,
    // Off: the side servers on fixed ports, and the usage report to an outside address.
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
    '-master.telemetry=false',
    // A volume server waits 10 s after its last heartbeat before it stops (for a cluster to
    // route around it); alone, it need not, and a test's stop takes that much less.
    '-volume.preStopSeconds=0',
  ];
  if (options.tls) {
    await writeFile(join(dir, 's3.crt'), options.tls.cert);
    await writeFile(join(dir, 's3.key'), options.tls.key, { mode: 0o600 });
    args.push(`-s3.cert.file=${join(dir, 's3.crt')}`, `-s3.key.file=${join(dir, 's3.key')}`);
  }
  const logFile = join(dir, 'weed.log');
  const log = openSync(logFile, 'a');
  const child = spawn(binary, args, { stdio: ['ignore', log, log] });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `${options.tls ? 'https' : 'http'}://${host}:${port['s3.port']}`;
  const client = new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
    ...(options.tls ? { requestHandler: { httpsAgent: new Agent({ ca: options.tls.ca }) } } : {}),
  });

  const stop = async () => {
    client.destroy();
    // SIGKILL: the directory is removed next, so nothing needs flushing, and weed's SIGTERM
    // takes 15 s (its volume server stops first, then the filer retries its metadata log
    // against it until a timeout).
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  const exitedEarly = () => {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`weed server exited (${child.exitCode ?? child.signalCode}); see its log`);
  };

  try {
    // Ready when the bucket can be made and an object written: the S3 gateway, the filer
    // behind it and a volume server registered with the master, all up.
    await waitFor(
      async () => {
        exitedEarly();
        await client.send(new CreateBucketCommand({ Bucket: bucket })).catch((error: { name?: string }) => {
          if (error.name !== 'BucketAlreadyOwnedByYou') throw error;
        });
        return true;
      },
      { what: `SeaweedFS S3 at ${endpoint} to create bucket ${bucket}`, timeout: 60_000 },
    );
    await waitFor(
      async () => {
        exitedEarly();
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: '.ready', Body: 'ok' }));
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: '.ready' }));
        return true;
      },
      { what: `SeaweedFS at ${endpoint} to store an object`, timeout: 60_000 },
    );
  } catch (error) {
    const tail = (await readFile(logFile, 'utf8').catch(() => '')).trim().split('\n').slice(-15).join('\n');
    await stop();
    throw new Error(`${(error as Error).message}\nlast lines of weed's log:\n${tail}`, { cause: error });
  }
  client.destroy();
  return { endpoint, region, accessKeyId, secretAccessKey, bucket, logFile, pid: child.pid as number, stop };
}

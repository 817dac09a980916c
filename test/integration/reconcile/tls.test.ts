import { X509Certificate } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { servedFingerprint } from '../../../shared/io/redis/tls.ts';
import { testCa, tlsSecret, type TestCa } from '../../support/tls-certs.ts';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, isReady, type Driver } from './harness.ts';
import { clusterPassword, loadedCluster, podPlacements, type LoadedCluster } from './pods.ts';
import { startS3Server } from '../../support/s3-server.ts';
import { apply, createBackup, s3Secret, storageOf, untilFinished } from './backup-fixture.ts';

const NAME = 'tlsc';

describe('reconcile: TLS from a kubernetes.io/tls Secret (on the local Kubernetes)', function () {
  this.timeout(900_000);
  let api: InstalledApi;
  let drive: Driver;
  let ns: string;
  let ca: TestCa;
  let cluster: LoadedCluster | undefined;
  let client: ConnectionOptions;
  const key = () => `${ns}/${NAME}`;
  const dnsNames = () => [
    `${NAME}.${ns}.svc`,
    `${NAME}.${ns}.svc.cluster.local`,
    `*.${NAME}-nodes.${ns}.svc`,
    `*.${NAME}-nodes.${ns}.svc.cluster.local`,
    'localhost',
  ];
  const json = async <T>(args: string[]) => JSON.parse(await api.env.kubectl([...args, '-n', ns, '-o', 'json'])) as T;
  /** What would change if a node restarted: the pod, its restart count, and Redis' own run id. */
  const lifeOf = async (password: string) => {
    const pods = await json<{
      items: { metadata: { name: string; uid: string }; status: { containerStatuses?: { restartCount: number }[] } }[];
    }>(['get', 'pods']);
    const runIds = new Map<string, string>();
    for (const p of await podPlacements(api, ns)) {
      const r = new Redis({ host: p.address.ip, port: p.address.port, password, tls: client, lazyConnect: true });
      try {
        const info = (await r.info('server')) as string;
        runIds.set(p.name, /run_id:(\w+)/.exec(info)?.[1] ?? '');
      } finally {
        r.disconnect();
      }
    }
    return pods.items
      .map(
        (p) =>
          `${p.metadata.name} ${p.metadata.uid} ${p.status.containerStatuses?.[0]?.restartCount} ${runIds.get(p.metadata.name)}`,
      )
      .sort();
  };

  before(async () => {
    api = await installApi(`knredis-tls-${process.pid}`);
    drive = driver(api);
    ns = await api.namespace(`rc-tls-${process.pid}`);
    ca = testCa();
    client = { ca: ca.ca, servername: `${NAME}.${ns}.svc` };
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify(tlsSecret(`${NAME}-tls`, ns, ca.ca, ca.issue(dnsNames()))),
    });
    cluster = await loadedCluster(api, drive, {
      namespace: ns,
      name: NAME,
      spec: {
        masters: 3,
        replicasPerMaster: 1,
        version: '7.0',
        storage: { reclaim: 'Delete' },
        tls: { secretRef: { name: `${NAME}-tls` } },
      },
      keys: 3_000,
      prefix: 't',
      workers: 4,
      tls: client,
    });
  });
  after(async () => {
    await cluster?.close();
    await api?.stop();
    ca?.cleanup();
  });

  it('serves TLS only: replication and the cluster bus over TLS, no plaintext port', async () => {
    const password = cluster!.password;
    for (const pod of await podPlacements(api, ns)) {
      const plain = new Redis({
        host: pod.address.ip,
        port: 6379,
        password,
        lazyConnect: true,
        retryStrategy: () => null,
      });
      plain.on('error', () => {});
      const answer = await plain.connect().then(
        () => plain.ping(),
        (e: Error) => e.message,
      );
      plain.disconnect();
      expect(answer, `${pod.name} plaintext`).not.to.equal('PONG');
      const secure = new Redis({ host: pod.address.ip, port: 6379, password, tls: client, lazyConnect: true });
      try {
        expect(await secure.ping()).to.equal('PONG');
        const conf = (await secure.config('GET', 'port')) as string[];
        expect(conf[1], `${pod.name} port`).to.equal('0');
        const tlsConf = (await secure.config('GET', 'tls-*')) as string[];
        const get = (k: string) => tlsConf[tlsConf.indexOf(k) + 1];
        expect([get('tls-cluster'), get('tls-replication')]).to.deep.equal(['yes', 'yes']);
        expect(await secure.cluster('INFO')).to.contain('cluster_state:ok');
      } finally {
        secure.disconnect();
      }
    }
    const rc = await drive.get(ns, NAME);
    expect(rc?.status?.readyNodes).to.equal(6);
  });

  it('scales out 3 -> 4 masters under a TLS cluster client: no client error, every key kept', async () => {
    await api.env.kubectl(['scale', 'rediscluster', NAME, '-n', ns, '--replicas=4']);
    const rc = await drive.until(
      key(),
      `${NAME} Ready with 4 masters`,
      (r) => isReady(r) && r?.status?.readyMasters === 4,
      600_000,
    );
    expect(rc?.status?.slotsCovered).to.equal(16384);
    const report = await cluster!.load.stop();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    expect(report.ops).to.be.greaterThan(0);
    expect(await cluster!.load.verify()).to.deep.equal([]);
    cluster!.load.start(4);
  });

  it('reloads a renewed certificate without a restart, under load, and new connections verify against it', async () => {
    const password = await clusterPassword(api, ns, NAME);
    const before = await lifeOf(password);
    const renewed = ca.issue(dnsNames());
    const wanted = new X509Certificate(renewed.cert).fingerprint256;
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify(tlsSecret(`${NAME}-tls`, ns, ca.ca, renewed)),
    });
    const progress: string[] = [];
    await drive.until(key(), 'every node serving the renewed certificate', (rc) => {
      progress.push(rc?.status?.operation?.progress ?? '');
      return isReady(rc) && !rc?.status?.operation;
    });
    const pods = await podPlacements(api, ns);
    // Ready with no operation means every node serves it (the status says so until then).
    const served = await Promise.all(pods.map((p) => servedFingerprint(p.address, client)));
    expect(served).to.deep.equal(pods.map(() => wanted));
    expect(await lifeOf(password)).to.deep.equal(before);
    // A new connection, verifying the chain and the name, gets the renewed certificate.
    for (const pod of pods) {
      const r = new Redis({ host: pod.address.ip, port: 6379, password, tls: client, lazyConnect: true });
      try {
        await r.connect();
        const socket = (r as unknown as { stream: import('node:tls').TLSSocket }).stream;
        expect(socket.authorized, pod.name).to.equal(true);
        expect(socket.getPeerCertificate().fingerprint256, pod.name).to.equal(wanted);
        expect(await r.ping()).to.equal('PONG');
      } finally {
        r.disconnect();
      }
    }
    const report = await cluster!.load.stop();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    cluster!.load.start(2);
    const events = await json<{ items: { reason: string; message: string }[] }>(['get', 'events']);
    expect(
      events.items.some((e) => e.reason === 'CertificateReloaded'),
      JSON.stringify(progress),
    ).to.equal(true);
    // No key material anywhere a user or a log reader looks.
    const rc = await drive.get(ns, NAME);
    const said = [...drive.logLines, ...events.items.map((e) => e.message), JSON.stringify(rc?.status)].join('\n');
    expect(said).not.to.contain('PRIVATE KEY');
    expect(said).not.to.contain(renewed.key.split('\n')[1]);
  });

  it('keeps a plaintext listener on 6380 when spec.tls.plaintext asks for it, TLS staying on 6379', async () => {
    const name = 'tlsp';
    const names = [`${name}.${ns}.svc`, `*.${name}-nodes.${ns}.svc`];
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify(tlsSecret(`${name}-tls`, ns, ca.ca, ca.issue(names))),
    });
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name, namespace: ns },
        spec: {
          masters: 3,
          replicasPerMaster: 0,
          version: '7.0',
          storage: { reclaim: 'Delete' },
          tls: { secretRef: { name: `${name}-tls` }, plaintext: true },
        },
      }),
    });
    try {
      const rc = await drive.until(`${ns}/${name}`, `${name} Ready`, isReady, 240_000);
      const password = await clusterPassword(api, ns, name);
      for (const shard of rc?.status?.shards ?? []) {
        const ip = shard.master?.ip ?? '';
        const plain = new Redis({ host: ip, port: 6380, password, lazyConnect: true });
        const secure = new Redis({
          host: ip,
          port: 6379,
          password,
          tls: { ca: ca.ca, servername: `${name}.${ns}.svc` },
          lazyConnect: true,
        });
        try {
          expect(await plain.ping(), `${ip}:6380`).to.equal('PONG');
          expect(await secure.ping(), `${ip}:6379`).to.equal('PONG');
        } finally {
          plain.disconnect();
          secure.disconnect();
        }
      }
    } finally {
      await drive.remove(ns, name);
    }
  });

  it('backs up the TLS cluster over TLS and restores it into another TLS cluster: every key and value', async () => {
    const s3 = await startS3Server();
    const restored = 'tlsr';
    try {
      await cluster!.load.stop();
      const password = await clusterPassword(api, ns, NAME);
      const secure = (address: { ip: string; port: number }, pw: string, servername: string) =>
        new Redis({
          host: address.ip,
          port: address.port,
          password: pw,
          tls: { ca: ca.ca, servername },
          lazyConnect: true,
        });
      /** Every key of a cluster's masters with its value, read over TLS. */
      const contents = async (name: string, pw: string) => {
        const all = new Map<string, string | null>();
        const pods = (await podPlacements(api, ns)).filter((p) => p.name.startsWith(`${name}-`));
        for (const pod of pods) {
          const r = secure(pod.address, pw, `${name}.${ns}.svc`);
          try {
            if (!String(await r.info('replication')).includes('role:master')) continue;
            for (const k of (await r.keys('*')) as string[]) all.set(k, await r.get(k));
          } finally {
            r.disconnect();
          }
        }
        return all;
      };
      const before = await contents(NAME, password);
      expect(before.size).to.be.greaterThan(3_000);
      await s3Secret(api, ns, 's3-keys', { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey });
      await createBackup(api, ns, 'tls-backup', { clusterName: NAME, storage: storageOf(s3, 's3-keys') });
      const backup = await untilFinished(api, drive, ns, NAME, 'tls-backup');
      expect(backup.status?.phase, backup.status?.message).to.equal('Completed');
      expect(backup.status?.shards?.reduce((sum, x) => sum + x.keys, 0)).to.equal(before.size);

      const names = [`${restored}.${ns}.svc`, `*.${restored}-nodes.${ns}.svc`];
      await api.env.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify(tlsSecret(`${restored}-tls`, ns, ca.ca, ca.issue(names))),
      });
      await apply(api, {
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: restored, namespace: ns },
        spec: {
          masters: 3,
          replicasPerMaster: 0,
          version: '7.0',
          storage: { reclaim: 'Delete' },
          tls: { secretRef: { name: `${restored}-tls` } },
          restore: { backupName: 'tls-backup' },
        },
      });
      const rc = await drive.until(`${ns}/${restored}`, `${restored} Ready`, isReady, 400_000);
      expect(rc?.status?.restore).to.deep.include({ phase: 'Completed', keys: before.size });
      const after = await contents(restored, await clusterPassword(api, ns, restored));
      expect(after.size).to.equal(before.size);
      const differ = [...before].filter(([k, v]) => after.get(k) !== v).map(([k]) => k);
      expect(differ, 'keys whose value differs').to.deep.equal([]);
    } finally {
      await drive.remove(ns, restored).catch(() => undefined);
      await s3.stop();
      cluster!.load.start(2);
    }
  });
});

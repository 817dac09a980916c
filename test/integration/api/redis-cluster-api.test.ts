// The RedisCluster API on the real API server (local environment, v1.37): the CRD with its
// conversion webhook and the validating webhook, served by functions/webhooks in this process.
// Asserts what a user sees through kubectl: samples apply, bad specs are refused with these
// exact messages, versions convert without loss, printer columns, and kubectl scale.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ANNOTATION_V1BETA1_SPEC } from '../../../shared/core/api/group.ts';
import { withDefaults } from '../../../shared/core/api/defaults.ts';
import { installApi, type InstalledApi } from './api-fixture.ts';

const BETA = 'redisclusters.v1beta1.cache.redis.io';
const ALPHA = 'redisclusters.v1alpha1.cache.redis.io';

describe('RedisCluster API on the API server', function () {
  this.timeout(120_000);
  let api: InstalledApi;
  let ns: string;
  let seq = 0;
  const fixedClass = `fixed-${process.pid}`;

  before(async function () {
    this.timeout(300_000);
    api = await installApi(`knredis-api-test-${process.pid}`);
    ns = await api.namespace(`api-${process.pid}`);
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: fixedClass },
        provisioner: 'knredis.local/hostpath',
        allowVolumeExpansion: false,
      }),
    });
  });

  after(async () => {
    await api?.env.kubectl(['delete', 'storageclass', fixedClass, '--ignore-not-found']);
    await api?.stop();
  });

  const kubectl = (args: string[], input?: string) =>
    api.env.kubectl(['-n', ns, ...args], input === undefined ? {} : { input });
  /** What kubectl prints on stderr when it fails; throws when it succeeds. */
  async function refusal(args: string[], input?: string): Promise<string> {
    try {
      await kubectl(args, input);
    } catch (error) {
      return (error as Error).message.replace(/^kubectl .*? failed: /s, '').trim();
    }
    throw new Error(`kubectl ${args.join(' ')} succeeded; a refusal was expected`);
  }
  const manifest = (apiVersion: string, name: string, spec: object) =>
    JSON.stringify({ apiVersion: `cache.redis.io/${apiVersion}`, kind: 'RedisCluster', metadata: { name }, spec });
  const getJson = async (resource: string, name: string) =>
    JSON.parse(await kubectl(['get', resource, name, '-o', 'json']));

  it('applies the samples of both versions', async () => {
    for (const file of ['redis-cluster-v1alpha1.yaml', 'redis-cluster-v1beta1.yaml']) {
      const out = await kubectl(
        ['apply', '-f', '-'],
        readFileSync(new URL(`../../../infra/samples/${file}`, import.meta.url), 'utf8'),
      );
      expect(out).to.match(/rediscluster\.cache\.redis\.io\/sample(-alpha)? created/);
    }
    expect((await getJson(BETA, 'sample-alpha')).spec).to.deep.equal({
      masters: 3,
      replicasPerMaster: 0,
      version: '7.0',
      storage: { className: 'local', size: '1Gi', reclaim: 'Retain' },
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
      config: { maxmemory: '100mb', 'maxmemory-policy': 'allkeys-lru' },
    });
    const sample = parse(
      readFileSync(new URL('../../../infra/samples/redis-cluster-v1beta1.yaml', import.meta.url), 'utf8'),
    );
    expect((await getJson(BETA, 'sample')).spec).to.deep.equal(withDefaults(sample.spec));
  });

  const invalid = (name: string) => `The RedisCluster "${name}" is invalid: `;
  const denied = (message: string) =>
    `The request is invalid: error when creating "STDIN": admission webhook "validate.redisclusters.cache.redis.io" denied the request: ${message}`;
  /** kubectl prints the served deprecation warning first for every v1alpha1 request. */
  const deprecated = (message: string) =>
    `Warning: cache.redis.io/v1alpha1 RedisCluster is deprecated; use cache.redis.io/v1beta1 (converted without loss)\n${message}`;
  const versions =
    'must be one of 7.0, 7.2, 7.4: 7.0 is the oldest supported, since forming and scaling a cluster needs CLUSTER ADDSLOTSRANGE and a multi-parameter CONFIG GET (Redis 7.0)';
  const dangerous =
    'it lets any client rewrite protected settings, run DEBUG (which can crash a node) or load code into Redis';
  const unchecked =
    '\n* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
  // [what, version, spec, expected message (name is filled in)]
  const badCreates: [string, string, object, (name: string) => string][] = [
    [
      'zero masters',
      'v1beta1',
      { masters: 0 },
      (n) =>
        `${invalid(n)}spec.masters: Invalid value: 0: a Redis Cluster needs at least 3 masters, so that the others can elect a new master after a failure`,
    ],
    [
      'negative masters',
      'v1beta1',
      { masters: -3 },
      (n) =>
        `${invalid(n)}\n* .spec.masters: Invalid value: -3: should be a non-negative integer\n* spec.masters: Invalid value: -3: a Redis Cluster needs at least 3 masters, so that the others can elect a new master after a failure`,
    ],
    [
      'too few masters',
      'v1beta1',
      { masters: 2 },
      (n) =>
        `${invalid(n)}spec.masters: Invalid value: 2: a Redis Cluster needs at least 3 masters, so that the others can elect a new master after a failure`,
    ],
    [
      'too many masters',
      'v1beta1',
      { masters: 501, replicasPerMaster: 0 },
      (n) => `${invalid(n)}spec.masters: Invalid value: 501: spec.masters in body should be less than or equal to 500`,
    ],
    [
      'negative replicas per master',
      'v1beta1',
      { replicasPerMaster: -1 },
      (n) =>
        `${invalid(n)}spec.replicasPerMaster: Invalid value: -1: spec.replicasPerMaster in body should be greater than or equal to 0`,
    ],
    [
      'too many nodes',
      'v1beta1',
      { masters: 400, replicasPerMaster: 3 },
      (n) =>
        `${invalid(n)}spec.masters: Invalid value: a Redis Cluster has at most 1000 nodes: masters × (1 + replicasPerMaster) must not exceed 1000`,
    ],
    [
      'an unknown Redis version',
      'v1beta1',
      { version: '5.0' },
      (n) => `${invalid(n)}spec.version: Invalid value: "5.0": ${versions}`,
    ],
    // 6.2 cannot form a cluster the way knredis forms it
    ['Redis 6.2', 'v1beta1', { version: '6.2' }, (n) => `${invalid(n)}spec.version: Invalid value: "6.2": ${versions}`],
    [
      'config port',
      'v1beta1',
      { config: { port: '7000' } },
      (n) =>
        `${invalid(n)}spec.config: Forbidden: port cannot be set: the operator decides where each node listens and where it writes its files`,
    ],
    [
      'config cluster-enabled',
      'v1beta1',
      { config: { 'cluster-enabled': 'no' } },
      (n) =>
        `${invalid(n)}spec.config: Forbidden: cluster-enabled cannot be set: the operator runs every node in cluster mode with its own nodes.conf and announces the pod's address`,
    ],
    [
      'config cluster-announce-ip',
      'v1beta1',
      { config: { 'cluster-announce-ip': '10.0.0.1' } },
      (n) =>
        `${invalid(n)}spec.config: Forbidden: cluster-announce-* cannot be set: the operator runs every node in cluster mode with its own nodes.conf and announces the pod's address`,
    ],
    [
      'config requirepass',
      'v1beta1',
      { config: { requirepass: 'hunter2' } },
      (n) =>
        `${invalid(n)}spec.config: Forbidden: requirepass cannot be set: passwords do not belong in the spec: use spec.auth.secretRef`,
    ],
    [
      'config rename-command',
      'v1alpha1',
      { replicas: 3, config: { 'rename-command': 'CONFIG ""' } },
      (n) =>
        deprecated(
          `${invalid(n)}spec.config: Forbidden: rename-command cannot be set: the operator needs CLUSTER, CONFIG and the other admin commands under their own names`,
        ),
    ],
    [
      'an upper-case config key',
      'v1beta1',
      { config: { MaxMemory: '1gb' } },
      (n) =>
        `${invalid(n)}spec.config: Invalid value: keys must be redis.conf directives in lower case, such as maxmemory-policy`,
    ],
    [
      'a config value with a line break',
      'v1beta1',
      { config: { 'maxmemory-policy': 'allkeys-lru\nport 1' } },
      (n) =>
        `${invalid(n)}spec.config: Invalid value: values must be on one line: a line break would add another redis.conf directive`,
    ],
    [
      'an unknown reclaim policy',
      'v1beta1',
      { storage: { reclaim: 'Keep' } },
      (n) =>
        `${invalid(n)}\n* spec.storage.reclaim: Unsupported value: "Keep": supported values: "Retain", "Delete"${unchecked}`,
    ],
    [
      'a storage size that is not a quantity',
      'v1beta1',
      { storage: { size: 'big' } },
      (n) => `${invalid(n)}spec.storage.size: Invalid value: "big": must be a positive quantity such as 10Gi`,
    ],
    [
      'an image with a space',
      'v1beta1',
      { image: 'redis 7' },
      (n) =>
        `${invalid(n)}spec.image: Invalid value: "redis 7": must be an image reference such as redis:7.2 or registry.example.com/redis@sha256:..., without spaces`,
    ],
    [
      'a maxmemory-policy Redis does not know',
      'v1beta1',
      { config: { 'maxmemory-policy': 'lru' } },
      () =>
        denied(
          'spec.config[maxmemory-policy]: "lru" must be one of volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction',
        ),
    ],
    // what redis-server would refuse at start-up ("Bad directive") and in CONFIG SET
    [
      'a mistyped config key',
      'v1beta1',
      { config: { 'maxmemory-polcy': 'allkeys-lru' } },
      () => denied('spec.config[maxmemory-polcy]: is not a setting of Redis 7.0: did you mean maxmemory-policy?'),
    ],
    [
      'a config boolean that is not yes or no',
      'v1beta1',
      { config: { 'lazyfree-lazy-eviction': 'true' } },
      () => denied('spec.config[lazyfree-lazy-eviction]: "true" must be yes or no'),
    ],
    [
      'a config integer out of range',
      'v1beta1',
      { config: { 'active-defrag-cycle-max': '100' } },
      () => denied('spec.config[active-defrag-cycle-max]: "100" must be an integer from 1 to 99'),
    ],
    [
      'a config size Redis cannot parse',
      'v1beta1',
      { config: { 'client-query-buffer-limit': '1tb' } },
      () =>
        denied(
          'spec.config[client-query-buffer-limit]: "1tb" must be a size in bytes or with a unit, such as 512mb or 2gb',
        ),
    ],
    [
      'a config value with an argument too many',
      'v1beta1',
      { config: { appendfsync: 'always no' } },
      () => denied('spec.config[appendfsync]: "always no" must be one of everysec, always, no'),
    ],
    [
      'config enable-debug-command',
      'v1beta1',
      { config: { 'enable-debug-command': 'yes' } },
      (n) => `${invalid(n)}spec.config: Forbidden: enable-debug-command cannot be set: ${dangerous}`,
    ],
    [
      'config enable-protected-configs',
      'v1beta1',
      { config: { 'enable-protected-configs': 'yes' } },
      (n) => `${invalid(n)}spec.config: Forbidden: enable-protected-configs cannot be set: ${dangerous}`,
    ],
    [
      'config enable-module-command',
      'v1beta1',
      { config: { 'enable-module-command': 'local' } },
      (n) => `${invalid(n)}spec.config: Forbidden: enable-module-command cannot be set: ${dangerous}`,
    ],
    [
      'too few v1alpha1 nodes',
      'v1alpha1',
      { replicas: 2 },
      (n) =>
        deprecated(
          `${invalid(n)}spec.replicas: Invalid value: 2: a Redis Cluster needs at least 3 Redis nodes (masters)`,
        ),
    ],
    [
      'a v1alpha1 object without replicas',
      'v1alpha1',
      { storageClass: 'local' },
      (n) => deprecated(`${invalid(n)}\n* spec.replicas: Required value${unchecked}`),
    ],
  ];
  for (const [what, version, spec, message] of badCreates) {
    it(`refuses ${what} (${version}) with a message for people`, async () => {
      const name = `bad-${++seq}`;
      expect(await refusal(['create', '-f', '-'], manifest(version, name, spec))).to.equal(message(name));
    });
  }

  it('refuses a name too long to build pod names from', async () => {
    const name = 'n'.repeat(41);
    expect(await refusal(['create', '-f', '-'], manifest('v1beta1', name, {}))).to.equal(
      `${invalid(name)}metadata.name: Invalid value: metadata.name must be at most 40 characters: the names of pods, services and volumes are built from it`,
    );
  });

  const patchDenied = (message: string) =>
    `The request is invalid: admission webhook "validate.redisclusters.cache.redis.io" denied the request: ${message}`;
  // [what, version, spec at creation, merge patch, expected message]
  const badUpdates: [string, string, object, object, (name: string) => string][] = [
    [
      'a storage class change',
      'v1beta1',
      { storage: { className: 'local' } },
      { spec: { storage: { className: 'fast' } } },
      (n) =>
        `${invalid(n)}spec.storage: Forbidden: storage.className cannot change: existing PersistentVolumeClaims keep the class they were created with`,
    ],
    [
      'a storage size that shrinks',
      'v1beta1',
      { storage: { size: '2Gi' } },
      { spec: { storage: { size: '1Gi' } } },
      (n) => `${invalid(n)}spec.storage: Forbidden: storage.size cannot shrink: a PersistentVolumeClaim can only grow`,
    ],
    [
      'a storage size that grows on a class that does not allow expansion',
      'v1beta1',
      { storage: { className: fixedClass, size: '1Gi' } },
      { spec: { storage: { size: '2Gi' } } },
      () =>
        patchDenied(
          `spec.storage.size: the volumes cannot grow from 1Gi to 2Gi: StorageClass ${fixedClass} does not allow volume expansion (allowVolumeExpansion is not true); keep 1Gi, or ask the cluster's administrator to allow expansion on that class`,
        ),
    ],
    [
      'a v1alpha1 storageClass change',
      'v1alpha1',
      { replicas: 3, storageClass: 'local' },
      { spec: { storageClass: 'fast' } },
      (n) =>
        deprecated(
          `${invalid(n)}spec.storageClass: Forbidden: storageClass cannot change: existing PersistentVolumeClaims keep the class they were created with`,
        ),
    ],
    [
      'a scale-in of more than half the masters',
      'v1beta1',
      { masters: 8 },
      { spec: { masters: 3 } },
      () =>
        patchDenied(
          'spec.masters: scaling in from 8 to 3 masters removes 5 at once, but at most 4 (half) can go in one step because their slots move to the masters that stay: scale to 4 first, then to 3',
        ),
    ],
    [
      'a Redis downgrade',
      'v1beta1',
      { version: '7.2' },
      { spec: { version: '7.0' } },
      () =>
        patchDenied(
          'spec.version: downgrading Redis from 7.2 to 7.0 is not supported: an older Redis cannot load the data files a newer one wrote',
        ),
    ],
    [
      'masters and replicas changed at once',
      'v1beta1',
      { masters: 3, replicasPerMaster: 1 },
      { spec: { masters: 4, replicasPerMaster: 2 } },
      () =>
        patchDenied(
          'spec.masters and spec.replicasPerMaster cannot change in one update: the operator changes the topology one step at a time; change one, then the other',
        ),
    ],
    [
      'TLS turned on on a live cluster',
      'v1beta1',
      {},
      { spec: { tls: { secretRef: { name: 'rc-tls' } } } },
      () =>
        patchDenied(
          'spec.tls cannot be added to a live cluster: clients, replicas and the cluster bus would have to switch all at once; create a new RedisCluster with spec.tls and move the data to it',
        ),
    ],
    [
      'TLS turned off on a live cluster',
      'v1beta1',
      { tls: { secretRef: { name: 'rc-tls' } } },
      { spec: { tls: null } },
      () =>
        patchDenied(
          'spec.tls cannot be removed from a live cluster: clients, replicas and the cluster bus would have to switch all at once; create a new RedisCluster without spec.tls and move the data to it',
        ),
    ],
  ];
  for (const [what, version, spec, patch, message] of badUpdates) {
    it(`refuses ${what} (${version}) with a message for people`, async () => {
      const name = `upd-${++seq}`;
      await kubectl(['create', '-f', '-'], manifest(version, name, spec));
      const resource = version === 'v1alpha1' ? ALPHA : BETA;
      expect(await refusal(['patch', resource, name, '--type', 'merge', '-p', JSON.stringify(patch)])).to.equal(
        message(name),
      );
    });
  }

  it('refuses v1alpha1 replicas that do not split into whole shards of the v1beta1 spec', async () => {
    await kubectl(['create', '-f', '-'], manifest('v1beta1', 'uneven', { masters: 3, replicasPerMaster: 1 }));
    expect(await refusal(['patch', ALPHA, 'uneven', '--type', 'merge', '-p', '{"spec":{"replicas":7}}'])).to.equal(
      deprecated(
        patchDenied(
          'spec.replicas: 7 Redis nodes cannot be split into masters with 1 replica each: use a multiple of 2 (such as 6 or 8), or change masters and replicasPerMaster through cache.redis.io/v1beta1',
        ),
      ),
    );
    await kubectl(['patch', ALPHA, 'uneven', '--type', 'merge', '-p', '{"spec":{"replicas":8}}']);
    expect((await getJson(BETA, 'uneven')).spec).to.include({ masters: 4, replicasPerMaster: 1 });
  });

  it('loses nothing: created as v1alpha1, read as v1beta1, updated as v1beta1, read and updated as v1alpha1', async () => {
    const alphaSpec = {
      replicas: 4,
      storageClass: 'local',
      config: { 'maxmemory-policy': 'allkeys-lfu' },
      resources: { requests: { memory: '64Mi' } },
    };
    await kubectl(['create', '-f', '-'], manifest('v1alpha1', 'trip', alphaSpec));
    // 1: read as v1alpha1: exactly what was written, no annotation
    const a1 = await getJson(ALPHA, 'trip');
    expect(a1.spec).to.deep.equal(alphaSpec);
    expect(a1.metadata.annotations?.[ANNOTATION_V1BETA1_SPEC]).to.equal(undefined);
    // 2: read as v1beta1, update the fields v1alpha1 cannot hold
    const b1 = await getJson(BETA, 'trip');
    expect(b1.spec).to.include({ masters: 4, replicasPerMaster: 0 });
    const extra = {
      version: '7.2',
      auth: { secretRef: { name: 'trip-pw', key: 'pw' } },
      exporter: { enabled: true },
      paused: true,
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'redis', effect: 'NoSchedule' }],
      storage: { className: 'local', size: '3Gi', reclaim: 'Delete' },
    };
    await kubectl(['patch', BETA, 'trip', '--type', 'merge', '-p', JSON.stringify({ spec: extra })]);
    await kubectl(['patch', BETA, 'trip', '--type', 'merge', '-p', JSON.stringify({ spec: { replicasPerMaster: 1 } })]);
    const b2 = await getJson(BETA, 'trip');
    // 3: read as v1alpha1: replicas counts the nodes, the rest rides in the annotation
    const a2 = await getJson(ALPHA, 'trip');
    expect(a2.spec).to.deep.equal({ ...alphaSpec, replicas: 8 });
    expect(JSON.parse(a2.metadata.annotations[ANNOTATION_V1BETA1_SPEC])).to.deep.include({
      replicasPerMaster: 1,
      version: '7.2',
      paused: true,
    });
    // 4: update as v1alpha1 (a config change, a replace of the whole object): v1beta1 keeps everything else
    a2.spec.config = { 'maxmemory-policy': 'volatile-lru' };
    await kubectl(['replace', '-f', '-'], JSON.stringify(a2));
    const b3 = await getJson(BETA, 'trip');
    expect(b3.spec).to.deep.equal({ ...b2.spec, config: { 'maxmemory-policy': 'volatile-lru' } });
    expect(b3.metadata.annotations?.[ANNOTATION_V1BETA1_SPEC]).to.equal(undefined);
  });

  it('loses nothing the other way: created as v1beta1, updated as v1alpha1, read as v1beta1', async () => {
    const spec = {
      masters: 3,
      replicasPerMaster: 2,
      version: '7.4',
      image: 'redis:7.4-alpine',
      imagePullPolicy: 'IfNotPresent',
      storage: { size: '5Gi', reclaim: 'Delete' },
      nodeSelector: { disk: 'ssd' },
      podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' } },
          ],
        },
      },
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
      ],
    };
    await kubectl(['create', '-f', '-'], manifest('v1beta1', 'back', spec));
    const before = await getJson(BETA, 'back');
    expect(before.spec).to.deep.equal(withDefaults(spec as never));
    const a = await getJson(ALPHA, 'back');
    expect(a.spec.replicas).to.equal(9);
    a.spec.replicas = 12;
    await kubectl(['replace', '-f', '-'], JSON.stringify(a));
    const after = await getJson(BETA, 'back');
    expect(after.spec).to.deep.equal({ ...before.spec, masters: 4 });
  });

  it('keeps v1beta1-only fields through a server-side apply as v1alpha1', async () => {
    const alpha = (replicas: number) =>
      `apiVersion: cache.redis.io/v1alpha1\nkind: RedisCluster\nmetadata: {name: ssa}\nspec: {replicas: ${replicas}, storageClass: local}\n`;
    await kubectl(['apply', '--server-side', '-f', '-'], alpha(3));
    await kubectl([
      'patch',
      BETA,
      'ssa',
      '--type',
      'merge',
      '-p',
      '{"spec":{"version":"7.2","exporter":{"enabled":true}}}',
    ]);
    await kubectl(['apply', '--server-side', '-f', '-'], alpha(4));
    expect((await getJson(BETA, 'ssa')).spec).to.deep.equal({
      masters: 4,
      replicasPerMaster: 0,
      version: '7.2',
      exporter: { enabled: true },
      storage: { className: 'local', size: '1Gi', reclaim: 'Retain' },
    });
  });

  it('explains every field with kubectl explain', async () => {
    const out = await kubectl(['explain', 'redisclusters.spec.storage.reclaim']);
    expect(out).to.contain('What happens to the PVCs when the RedisCluster is deleted: Retain (default)');
    expect(await kubectl(['explain', 'redisclusters.status.operation.progress'])).to.contain(
      'migrating slots 1200/5461',
    );
  });

  it('shows the printer columns in kubectl get redisclusters, and takes the short name', async () => {
    await kubectl(['create', '-f', '-'], manifest('v1beta1', 'cols', { masters: 5, replicasPerMaster: 2 }));
    const out = await kubectl(['get', 'redisclusters', 'cols']);
    const [header, row] = out.trim().split('\n');
    expect(header!.split(/\s+/)).to.deep.equal(['NAME', 'MASTERS', 'REPLICAS', 'READY', 'SLOTS', 'PHASE', 'AGE']);
    expect(row!.split(/\s+/).slice(0, 3)).to.deep.equal(['cols', '5', '2']);
    const wide = await kubectl(['get', 'redisc', 'cols', '-o', 'wide']);
    expect(wide.split('\n')[0]!.split(/\s+/)).to.include.members(['VERSION', 'OPERATION']);
    expect(wide.split('\n')[1]).to.contain('7.0');
  });

  it('fills the status columns from the status subresource', async () => {
    await kubectl(['create', '-f', '-'], manifest('v1beta1', 'stat', {}));
    const status = {
      readyNodes: 5,
      readyMasters: 3,
      slotsCovered: 16384,
      phase: 'Running',
      selector: 'app.kubernetes.io/instance=stat',
    };
    await kubectl([
      'patch',
      BETA,
      'stat',
      '--subresource',
      'status',
      '--type',
      'merge',
      '-p',
      JSON.stringify({ status }),
    ]);
    const row = (await kubectl(['get', 'redisclusters', 'stat', '--no-headers'])).trim().split(/\s+/);
    expect(row.slice(0, 6)).to.deep.equal(['stat', '3', '1', '5', '16384', 'Running']);
    const alpha = await getJson(ALPHA, 'stat');
    expect(alpha.status).to.deep.equal({ readyReplicas: 5 });
  });

  it('scales the masters with kubectl scale, and refuses a scale-in of more than half', async () => {
    await kubectl(['create', '-f', '-'], manifest('v1beta1', 'scaled', { masters: 3 }));
    expect(await kubectl(['scale', 'rediscluster', 'scaled', '--replicas', '8'])).to.contain(
      'rediscluster.cache.redis.io/scaled scaled',
    );
    expect((await getJson(BETA, 'scaled')).spec.masters).to.equal(8);
    expect(await refusal(['scale', 'rediscluster', 'scaled', '--replicas', '3'])).to.equal(
      patchDenied(
        'spec.masters: scaling in from 8 to 3 masters removes 5 at once, but at most 4 (half) can go in one step because their slots move to the masters that stay: scale to 4 first, then to 3',
      ),
    );
    await kubectl(['scale', 'rediscluster', 'scaled', '--replicas', '4']);
    expect((await getJson(BETA, 'scaled')).spec.masters).to.equal(4);
    await kubectl(['scale', 'rediscluster', 'scaled', '--replicas', '3']);
    expect(await refusal(['scale', 'rediscluster', 'scaled', '--replicas', '2'])).to.equal(
      `${invalid('scaled')}spec.masters: Invalid value: 2: a Redis Cluster needs at least 3 masters, so that the others can elect a new master after a failure`,
    );
  });

  // kubectl scale goes through the scale subresource: the same rules and words as a patch of spec.masters.
  const degraded = {
    type: 'Degraded',
    status: 'True',
    reason: 'MasterDown',
    message: 'a master is down',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  };
  const scaleRefusals: [string, number, object, number, string][] = [
    [
      'during a migration',
      4,
      { operation: { type: 'ScaleIn', progress: 'migrating slots 100/8192' }, readyMasters: 4 },
      3,
      'spec.masters: cannot scale in while ScaleIn is in progress (migrating slots 100/8192): wait until it finishes',
    ],
    [
      'while masters are down',
      6,
      { readyMasters: 5, conditions: [degraded] },
      5,
      'spec.masters: cannot scale in while only 5 of 6 masters are ready: the slots of the removed masters need healthy masters to move to',
    ],
  ];
  for (const [what, masters, status, to, message] of scaleRefusals) {
    it(`refuses kubectl scale ${what} exactly as it refuses the same patch`, async () => {
      const name = `scl-${++seq}`;
      await kubectl(['create', '-f', '-'], manifest('v1beta1', name, { masters }));
      await kubectl([
        'patch',
        BETA,
        name,
        '--subresource',
        'status',
        '--type',
        'merge',
        '-p',
        JSON.stringify({ status }),
      ]);
      const patched = await refusal([
        'patch',
        BETA,
        name,
        '--type',
        'merge',
        '-p',
        JSON.stringify({ spec: { masters: to } }),
      ]);
      expect(patched).to.equal(
        `Warning: spec.masters: scaling in from ${masters} to ${to} moves the slots of ${masters - to} masters\n${patchDenied(message)}`,
      );
      expect(await refusal(['scale', 'rediscluster', name, '--replicas', String(to)])).to.equal(patched);
      expect((await getJson(BETA, name)).spec.masters).to.equal(masters);
    });
  }

  it('refuses a v1alpha1 kubectl scale to nodes that do not split into shards exactly as the same v1alpha1 patch', async () => {
    await kubectl(['create', '-f', '-'], manifest('v1beta1', 'alpha-scale', { masters: 3, replicasPerMaster: 1 }));
    const patched = await refusal(['patch', ALPHA, 'alpha-scale', '--type', 'merge', '-p', '{"spec":{"replicas":7}}']);
    expect(patched).to.contain('spec.replicas: 7 Redis nodes cannot be split into masters with 1 replica each');
    expect(await refusal(['scale', ALPHA, 'alpha-scale', '--replicas', '7'])).to.equal(patched);
  });

  it('says which table checked the config of a version without its own (7.4: the nearest older, 7.0)', async () => {
    const out = await api.env
      .kubectl(['-n', ns, 'create', '-f', '-', '--warnings-as-errors'], {
        input: manifest('v1beta1', 'newer', { version: '7.4', config: { hz: '20' } }),
      })
      .then(
        () => '',
        (e: Error) => e.message,
      );
    expect(out).to.contain(
      "Warning: spec.config: checked against the settings of Redis 7.0: knredis has no table of 7.4's yet",
    );
  });

  it('prints the webhook warnings for risky but allowed specs', async () => {
    const out = await api.env
      .kubectl(['-n', ns, 'create', '-f', '-', '--warnings-as-errors'], {
        input: manifest('v1beta1', 'warn', { replicasPerMaster: 0 }),
      })
      .then(
        () => '',
        (e: Error) => e.message,
      );
    expect(out).to.contain(
      'Warning: spec.replicasPerMaster is 0: without replicas a failed master takes its slots offline',
    );
  });
});

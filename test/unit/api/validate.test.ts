import { expect } from 'chai';
import { validateV1beta1 } from '../../../shared/core/api/validate-spec.ts';
import { ANNOTATION_V1BETA1_SPEC } from '../../../shared/core/api/group.ts';
import type { RedisClusterSpec, RedisClusterStatus } from '../../../shared/core/api/v1beta1.ts';
import { aBeta } from './builders.ts';

const update = (from: RedisClusterSpec, to: RedisClusterSpec, status?: RedisClusterStatus) =>
  validateV1beta1(aBeta(to), aBeta(from, status));

describe('api/validate-spec', () => {
  const refused: [string, RedisClusterSpec, RedisClusterSpec, RedisClusterStatus | undefined, string][] = [
    [
      'a scale-in of more than half the masters',
      { masters: 8 },
      { masters: 3 },
      undefined,
      'spec.masters: scaling in from 8 to 3 masters removes 5 at once, but at most 4 (half) can go in one step because their slots move to the masters that stay: scale to 4 first, then to 3',
    ],
    [
      'a scale-in during an operation',
      { masters: 6 },
      { masters: 5 },
      { operation: { type: 'ScaleOut', progress: 'migrating slots 1200/5461' } },
      'spec.masters: cannot scale in while ScaleOut is in progress (migrating slots 1200/5461): wait until it finishes',
    ],
    [
      'a scale-in while masters are down',
      { masters: 6 },
      { masters: 5 },
      { readyMasters: 4 },
      'spec.masters: cannot scale in while only 4 of 6 masters are ready: the slots of the removed masters need healthy masters to move to',
    ],
    [
      'masters and replicas changed together',
      { masters: 3, replicasPerMaster: 1 },
      { masters: 4, replicasPerMaster: 2 },
      undefined,
      'spec.masters and spec.replicasPerMaster cannot change in one update: the operator changes the topology one step at a time; change one, then the other',
    ],
    [
      'fewer replicas while Degraded',
      { replicasPerMaster: 2 },
      { replicasPerMaster: 1 },
      {
        conditions: [
          {
            type: 'Degraded',
            status: 'True',
            reason: 'MasterDown',
            message: 'm',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
      'spec.replicasPerMaster: cannot remove replicas while the cluster is Degraded: a replica may be the only healthy copy of a shard',
    ],
    [
      'a Redis downgrade',
      { version: '7.2' },
      { version: '7.0' },
      undefined,
      'spec.version: downgrading Redis from 7.2 to 7.0 is not supported: an older Redis cannot load the data files a newer one wrote',
    ],
    [
      'a maxmemory that is not a size',
      {},
      { config: { maxmemory: 'lots' } },
      undefined,
      'spec.config[maxmemory]: "lots" must be a size in bytes or with a unit, such as 512mb or 2gb',
    ],
    [
      'an unknown maxmemory-policy',
      {},
      { config: { 'maxmemory-policy': 'lru' } },
      undefined,
      'spec.config[maxmemory-policy]: "lru" must be one of volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction',
    ],
    // what Redis 7.0 refuses at start-up ("Bad directive") and in CONFIG SET, from the generated table
    [
      'a mistyped key, with the nearest setting',
      {},
      { config: { 'maxmemory-polcy': 'allkeys-lru' } },
      undefined,
      'spec.config[maxmemory-polcy]: is not a setting of Redis 7.0: did you mean maxmemory-policy?',
    ],
    [
      'a key nothing is near',
      {},
      { config: { 'turbo-mode': 'yes' } },
      undefined,
      'spec.config[turbo-mode]: is not a setting of Redis 7.0',
    ],
    [
      'a boolean that is not yes or no',
      {},
      { config: { appendonly: 'true' } },
      undefined,
      'spec.config[appendonly]: "true" must be yes or no',
    ],
    [
      'an appendfsync Redis does not know',
      {},
      { config: { appendfsync: 'sometimes' } },
      undefined,
      'spec.config[appendfsync]: "sometimes" must be one of everysec, always, no',
    ],
    [
      'a loglevel Redis does not know',
      {},
      { config: { loglevel: 'info' } },
      undefined,
      'spec.config[loglevel]: "info" must be one of debug, verbose, notice, warning',
    ],
    [
      'an integer that is not one',
      {},
      { config: { hz: 'fast' } },
      undefined,
      'spec.config[hz]: "fast" must be an integer from 0 to 2147483647',
    ],
    [
      'an integer out of range',
      {},
      { config: { 'active-defrag-cycle-max': '100' } },
      undefined,
      'spec.config[active-defrag-cycle-max]: "100" must be an integer from 1 to 99',
    ],
    [
      'a size with a unit Redis does not know',
      {},
      { config: { 'proto-max-bulk-len': '1tb' } },
      undefined,
      'spec.config[proto-max-bulk-len]: "1tb" must be a size in bytes or with a unit',
    ],
    [
      'a size or percentage that is neither',
      {},
      { config: { 'maxmemory-clients': 'half' } },
      undefined,
      'spec.config[maxmemory-clients]: "half" must be a size such as 512mb, or a percentage such as 10%',
    ],
    [
      'a node timeout too short for the operator',
      {},
      { config: { 'cluster-node-timeout': '500' } },
      undefined,
      'spec.config[cluster-node-timeout]: "500" must be a number of milliseconds, at least 1000',
    ],
    [
      'TLS turned on on a live cluster',
      {},
      { tls: { secretRef: { name: 'rc-tls' } } },
      undefined,
      'spec.tls cannot be added to a live cluster: clients, replicas and the cluster bus would have to switch all at once',
    ],
    [
      'TLS turned off on a live cluster',
      { tls: { secretRef: { name: 'rc-tls' } } },
      {},
      undefined,
      'spec.tls cannot be removed from a live cluster',
    ],
    [
      'a TLS Secret without a name',
      { tls: { secretRef: { name: 'rc-tls' } } },
      { tls: { secretRef: { name: '' } } },
      undefined,
      'spec.tls.secretRef.name is required',
    ],
    [
      'plaintext off without a TLS Secret',
      { tls: { secretRef: { name: 'rc-tls' } } },
      { tls: { plaintext: false } as never },
      undefined,
      'spec.tls.secretRef.name is required',
    ],
  ];
  for (const [what, from, to, status, message] of refused) {
    it(`refuses ${what}`, () => {
      const verdict = update(from, to, status);
      expect(verdict.denials).to.have.length(1);
      expect(verdict.denials[0]).to.contain(message);
    });
  }

  const allowed: [string, RedisClusterSpec, RedisClusterSpec, RedisClusterStatus | undefined][] = [
    ['a scale-in of exactly half', { masters: 8 }, { masters: 4 }, { readyMasters: 8 }],
    ['a scale-out during an operation', { masters: 3 }, { masters: 6 }, { operation: { type: 'ScaleOut' } }],
    ['an upgrade', { version: '7.0' }, { version: '7.4' }, undefined],
    ['fewer replicas on a healthy cluster', { replicasPerMaster: 2 }, { replicasPerMaster: 1 }, { readyMasters: 3 }],
    [
      'another TLS Secret (the nodes reload from it)',
      { tls: { secretRef: { name: 'rc-tls' } } },
      { tls: { secretRef: { name: 'rc-tls-2' } } },
      undefined,
    ],
    [
      'the plaintext listener turned off',
      { tls: { secretRef: { name: 'rc-tls' }, plaintext: true } },
      { tls: { secretRef: { name: 'rc-tls' } } },
      undefined,
    ],
    [
      'unchanged specs',
      { masters: 3, config: { maxmemory: '2gb' } },
      { masters: 3, config: { maxmemory: '2gb' } },
      undefined,
    ],
    [
      'sizes, percentages, booleans and enums as Redis writes them',
      {},
      {
        config: {
          maxmemory: '1GB',
          'maxmemory-clients': '10%',
          appendonly: 'YES',
          'maxmemory-policy': 'allkeys-lfu',
          'slave-read-only': 'yes',
          hz: '50',
        },
      },
      undefined,
    ],
    [
      'a setting with a syntax of its own, left to Redis',
      {},
      { config: { save: '3600 1 300 100', 'notify-keyspace-events': 'Ex' } },
      undefined,
    ],
  ];
  for (const [what, from, to, status] of allowed) {
    it(`allows ${what}`, () => expect(update(from, to, status).denials).to.deep.equal([]));
  }

  it('refuses a TLS Secret without a name at creation, and warns of a plaintext listener', () => {
    const missing = validateV1beta1(aBeta({ tls: { plaintext: false } as never }), undefined);
    expect(missing.denials).to.have.length(1);
    expect(missing.denials[0]).to.contain('spec.tls.secretRef.name is required');
    const plain = validateV1beta1(aBeta({ tls: { secretRef: { name: 'rc-tls' }, plaintext: true } }), undefined);
    expect(plain.denials).to.deep.equal([]);
    expect(plain.warnings).to.include('spec.tls.plaintext is true: port 6380 still accepts unencrypted clients');
  });

  it('warns once of what external access opens, and refuses an invalid annotation key', () => {
    const created = validateV1beta1(aBeta({ externalAccess: { type: 'NodePort' } }), undefined);
    expect(created.denials).to.deep.equal([]);
    expect(created.warnings.join('\n')).to.contain('cluster bus has no authentication');
    expect(
      update({ externalAccess: { type: 'NodePort' } }, { externalAccess: { type: 'NodePort' }, masters: 4 }).warnings,
    ).to.deep.equal([]);
    const changed = update({ externalAccess: { type: 'NodePort' } }, { externalAccess: { type: 'LoadBalancer' } });
    expect(changed.denials).to.deep.equal([]);
    expect(changed.warnings.join('\n')).to.contain('spec.externalAccess.type is LoadBalancer');
    const withTls = validateV1beta1(
      aBeta({ externalAccess: { type: 'LoadBalancer' }, tls: { secretRef: { name: 'rc-tls' } } }),
      undefined,
    );
    expect(withTls.warnings.join('\n')).to.contain('an IP SAN per node address');
    const bad = validateV1beta1(
      aBeta({ externalAccess: { type: 'LoadBalancer', annotations: { 'bad key!': 'x', 'example.com/ok': 'y' } } }),
      undefined,
    );
    expect(bad.denials).to.have.length(1);
    expect(bad.denials[0]).to.contain('"bad key!" is not a valid annotation key');
  });

  it('does not judge again a config value the object already had (a finalizer update must pass)', () => {
    expect(update({ config: { maxmemory: 'lots' } }, { config: { maxmemory: 'lots' } }).denials).to.deep.equal([]);
    expect(update({ config: { maxmemory: 'lots' } }, { config: { maxmemory: 'more' } }).denials).to.have.length(1);
  });

  it('does not judge again a key the object already had, known or not', () => {
    expect(
      update({ config: { 'turbo-mode': 'yes' } }, { masters: 4, config: { 'turbo-mode': 'yes' } }).denials,
    ).to.deep.equal([]);
  });

  it('checks a version without a table of its own against the nearest older one, and says so', () => {
    const verdict = validateV1beta1(aBeta({ version: '7.4', config: { 'maxmemory-polcy': 'noeviction' } }), undefined);
    expect(verdict.denials).to.deep.equal([
      'spec.config[maxmemory-polcy]: is not a setting of Redis 7.0: did you mean maxmemory-policy?',
    ]);
    expect(verdict.warnings).to.deep.equal([
      "spec.config: checked against the settings of Redis 7.0: knredis has no table of 7.4's yet",
    ]);
    expect(validateV1beta1(aBeta({ version: '7.0', config: { hz: '10' } }), undefined).warnings).to.deep.equal([]);
  });

  it('refuses the conversion annotations on a v1beta1 object', () => {
    const verdict = validateV1beta1(aBeta({}, undefined, { [ANNOTATION_V1BETA1_SPEC]: '{}' }), undefined);
    expect(verdict.denials).to.deep.equal([
      `metadata.annotations[${ANNOTATION_V1BETA1_SPEC}] is reserved for conversion from cache.redis.io/v1alpha1: remove it`,
    ]);
  });

  it('warns about risky but allowed choices on create', () => {
    expect(
      validateV1beta1(aBeta({ replicasPerMaster: 0, storage: { reclaim: 'Delete' }, paused: true }), undefined)
        .warnings,
    ).to.deep.equal([
      'spec.replicasPerMaster is 0: without replicas a failed master takes its slots offline',
      'spec.storage.reclaim is Delete: deleting this RedisCluster deletes its data',
      'spec.paused is true: the operator will not create, heal or scale this cluster',
    ]);
    expect(validateV1beta1(aBeta({}), undefined).warnings).to.deep.equal([]);
  });

  it('warns about risky but allowed changes on update, once', () => {
    const verdict = update(
      { config: { 'maxmemory-policy': 'noeviction' }, storage: { size: '1Gi' } },
      { config: { 'maxmemory-policy': 'allkeys-lru' }, storage: { size: '2Gi' } },
    );
    expect(verdict.denials).to.deep.equal([]);
    expect(verdict.warnings).to.deep.equal([
      'spec.config[maxmemory-policy]: changing maxmemory-policy changes which keys Redis evicts when memory is full',
      'spec.storage.size: growing every volume from 1Gi to 2Gi; the pods keep running',
    ]);
    expect(
      update({ config: { 'maxmemory-policy': 'allkeys-lru' } }, { config: { 'maxmemory-policy': 'allkeys-lru' } })
        .warnings,
    ).to.deep.equal([]);
  });

  const fixed = { name: 'fixed', allowVolumeExpansion: false };
  const growing: [string, object, object, { name: string; allowVolumeExpansion: boolean } | undefined, boolean][] = [
    ['a larger size on a class that does not allow expansion', { size: '1Gi' }, { size: '2Gi' }, fixed, true],
    ['a larger size written in other units', { size: '1Gi' }, { size: '1025Mi' }, fixed, true],
    ['the same size in other units', { size: '1Gi' }, { size: '1024Mi' }, fixed, false],
    [
      'a larger size on a class that allows it',
      { size: '1Gi' },
      { size: '2Gi' },
      { ...fixed, allowVolumeExpansion: true },
      false,
    ],
    ['a larger size on a class the webhook could not find', { size: '1Gi' }, { size: '2Gi' }, undefined, false],
  ];
  for (const [what, before, after, storageClass, refused] of growing) {
    it(`${refused ? 'refuses' : 'allows'} ${what}`, () => {
      const verdict = validateV1beta1(
        aBeta({ storage: after }),
        aBeta({ storage: before }),
        storageClass ? { storageClass } : {},
      );
      if (refused)
        expect(verdict.denials).to.deep.equal([
          `spec.storage.size: the volumes cannot grow from 1Gi to ${(after as { size: string }).size}: StorageClass fixed does not allow volume expansion (allowVolumeExpansion is not true); keep 1Gi, or ask the cluster's administrator to allow expansion on that class`,
        ]);
      else expect(verdict.denials).to.deep.equal([]);
    });
  }

  it('keeps every warning short enough for the API server (120 characters)', () => {
    const all = [
      ...validateV1beta1(aBeta({ replicasPerMaster: 0, storage: { reclaim: 'Delete' }, paused: true }), undefined)
        .warnings,
      ...update(
        {
          masters: 6,
          version: '7.0',
          auth: { secretRef: { name: 'a' } },
          config: { maxmemory: '1', appendonly: 'no', save: '' },
        },
        {
          masters: 5,
          version: '7.2',
          auth: { secretRef: { name: 'b' } },
          paused: true,
          storage: { size: '2Gi', reclaim: 'Delete' },
        },
      ).warnings,
    ];
    expect(all.length).to.be.greaterThan(8);
    expect(all.filter((w) => w.length > 120)).to.deep.equal([]);
  });
});

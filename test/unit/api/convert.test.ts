import { expect } from 'chai';
import { convertObject, toV1alpha1, toV1beta1 } from '../../../shared/core/api/convert.ts';
import { withDefaults } from '../../../shared/core/api/defaults.ts';
import { ConversionError } from '../../../shared/core/api/errors.ts';
import { ANNOTATION_V1BETA1_SPEC, ANNOTATION_V1BETA1_STATUS } from '../../../shared/core/api/group.ts';
import type { RedisCluster } from '../../../shared/core/api/v1beta1.ts';
import { aBeta, anAlpha, random, randomAlpha, randomBeta, strip } from './builders.ts';

const served = (b: RedisCluster): RedisCluster => ({ ...b, spec: withDefaults(b.spec) });

describe('api/convert', function () {
  // Thousands of generated objects: generous on a loaded machine (no timing is asserted).
  this.timeout(60_000);

  it('converts a plain v1alpha1 object to masters only, and back without an annotation', () => {
    const a = anAlpha(
      { replicas: 6, storageClass: 'fast', config: { 'maxmemory-policy': 'allkeys-lru' } },
      { readyReplicas: 5, masterPod: 'c-0-0' },
    );
    const b = toV1beta1(a);
    expect(b.apiVersion).to.equal('cache.redis.io/v1beta1');
    expect(b.spec).to.deep.equal({
      masters: 6,
      replicasPerMaster: 0,
      storage: { className: 'fast' },
      config: { 'maxmemory-policy': 'allkeys-lru' },
    });
    expect(b.status).to.deep.equal({ readyNodes: 5, masterPod: 'c-0-0' });
    expect(b.metadata.annotations).to.equal(undefined);
    expect(toV1alpha1(served(b))).to.deep.equal(a);
  });

  it('counts v1alpha1 replicas as masters × (1 + replicasPerMaster) and keeps the rest in an annotation', () => {
    const b = aBeta({
      masters: 3,
      replicasPerMaster: 2,
      version: '7.2',
      auth: { secretRef: { name: 'pw' } },
      storage: { className: 'fast', size: '5Gi' },
    });
    const a = toV1alpha1(b);
    expect(a.spec).to.deep.equal({ replicas: 9, storageClass: 'fast' });
    const kept = JSON.parse(a.metadata.annotations?.[ANNOTATION_V1BETA1_SPEC] ?? '{}');
    expect(kept).to.deep.equal({
      replicasPerMaster: 2,
      version: '7.2',
      auth: { secretRef: { name: 'pw', key: 'password' } },
      storage: { size: '5Gi', reclaim: 'Retain' },
    });
    expect(toV1beta1(a)).to.deep.equal(served(b));
  });

  it('keeps the status fields v1alpha1 cannot hold in their own annotation', () => {
    const b = aBeta(
      {},
      {
        phase: 'Scaling',
        readyNodes: 4,
        readyMasters: 3,
        operation: { type: 'ScaleIn', progress: 'migrating slots 1200/5461' },
      },
    );
    const a = toV1alpha1(b);
    expect(a.status).to.deep.equal({ readyReplicas: 4 });
    expect(JSON.parse(a.metadata.annotations?.[ANNOTATION_V1BETA1_STATUS] ?? '{}')).to.deep.equal({
      phase: 'Scaling',
      readyMasters: 3,
      operation: { type: 'ScaleIn', progress: 'migrating slots 1200/5461' },
    });
    expect(toV1beta1(a).status).to.deep.equal(b.status);
  });

  it('round-trips the pod pass-through fields through v1alpha1', () => {
    const b = aBeta({
      priorityClassName: 'redis-high',
      securityContext: { runAsUser: 1001, seccompProfile: { type: 'RuntimeDefault' } },
      env: [
        { name: 'TZ', value: 'UTC' },
        { name: 'T', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      ],
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'dedicated', operator: 'Exists' }],
    });
    expect(toV1beta1(toV1alpha1(b))).to.deep.equal(served(b));
  });

  it('refuses v1alpha1 replicas that do not split into whole shards, saying which counts would', () => {
    const a = toV1alpha1(aBeta({ masters: 3, replicasPerMaster: 1 }));
    a.spec.replicas = 7;
    expect(() => toV1beta1(a)).to.throw(
      ConversionError,
      'spec.replicas: 7 Redis nodes cannot be split into masters with 1 replica each: use a multiple of 2 (such as 6 or 8), or change masters and replicasPerMaster through cache.redis.io/v1beta1',
    );
  });

  it('scales a v1alpha1 object with replicas by whole shards', () => {
    const a = toV1alpha1(aBeta({ masters: 3, replicasPerMaster: 1, version: '7.2' }));
    a.spec.replicas = 8;
    expect(toV1beta1(a).spec).to.include({ masters: 4, replicasPerMaster: 1, version: '7.2' });
  });

  it('refuses an annotation that is not JSON, naming it', () => {
    const a = anAlpha({ replicas: 3 }, undefined, { [ANNOTATION_V1BETA1_SPEC]: '{oops' });
    expect(() => toV1beta1(a)).to.throw(
      ConversionError,
      `metadata.annotations[${ANNOTATION_V1BETA1_SPEC}] is not valid JSON`,
    );
    const b = anAlpha({ replicas: 3 }, undefined, { [ANNOTATION_V1BETA1_SPEC]: '{"replicasPerMaster":-1}' });
    expect(() => toV1beta1(b)).to.throw(ConversionError, 'replicasPerMaster must be a whole number >= 0');
  });

  it('lets the v1alpha1 fields win over a stale annotation', () => {
    const a = anAlpha({ replicas: 4, storageClass: 'new' }, undefined, {
      [ANNOTATION_V1BETA1_SPEC]: JSON.stringify({ masters: 99, storage: { size: '2Gi' } }),
    });
    expect(toV1beta1(a).spec).to.deep.equal({
      masters: 4,
      replicasPerMaster: 0,
      storage: { size: '2Gi', className: 'new' },
    });
  });

  it('keeps other annotations and drops only its own', () => {
    const b = aBeta({ replicasPerMaster: 2 }, undefined, { team: 'cache' });
    const a = toV1alpha1(b);
    expect(Object.keys(a.metadata.annotations ?? {})).to.have.members(['team', ANNOTATION_V1BETA1_SPEC]);
    expect(toV1beta1(a).metadata.annotations).to.deep.equal({ team: 'cache' });
  });

  it('round-trips 2000 generated v1alpha1 objects through v1beta1 unchanged', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const a = randomAlpha(random(seed));
      expect(toV1alpha1(served(toV1beta1(a))), `seed ${seed}`).to.deep.equal(a);
    }
  });

  it('round-trips 2000 generated v1beta1 objects through v1alpha1 to what the API server serves', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const b = randomBeta(random(seed));
      expect(toV1beta1(toV1alpha1(b)), `seed ${seed}`).to.deep.equal(served(b));
    }
  });

  it('loses nothing when created as v1alpha1, updated as v1beta1, read as v1alpha1 and updated again', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const r = random(seed);
      const created = served(toV1beta1(randomAlpha(r)));
      const edited = randomBeta(r);
      const updated = served(
        strip({ ...created, spec: { ...edited.spec, masters: created.spec.masters }, status: edited.status }),
      );
      const alpha = toV1alpha1(updated);
      expect(toV1beta1(alpha), `seed ${seed}`).to.deep.equal(updated);
      alpha.spec.config = { timeout: '30' };
      expect(toV1beta1(alpha).spec, `seed ${seed}`).to.deep.equal({ ...updated.spec, config: { timeout: '30' } });
    }
  });

  it('refuses objects of another kind or version with a reason', () => {
    expect(() => convertObject({ kind: 'Pod', metadata: {} }, 'cache.redis.io/v1beta1')).to.throw(
      ConversionError,
      'kind "Pod" is not RedisCluster',
    );
    expect(() =>
      convertObject({ kind: 'RedisCluster', apiVersion: 'cache.redis.io/v2', metadata: {} }, 'cache.redis.io/v1beta1'),
    ).to.throw(ConversionError, 'apiVersion "cache.redis.io/v2" is not one of');
    expect(() =>
      convertObject({ kind: 'RedisCluster', apiVersion: 'cache.redis.io/v1beta1', metadata: {} }, 'cache.redis.io/v9'),
    ).to.throw(ConversionError, 'desiredAPIVersion "cache.redis.io/v9"');
    expect(() => convertObject('x', 'cache.redis.io/v1beta1')).to.throw(
      ConversionError,
      'each object must be a JSON object',
    );
  });
});

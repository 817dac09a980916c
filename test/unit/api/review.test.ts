import { expect } from 'chai';
import type { JsonObject } from '../../../shared/core/api/json.ts';
import { admissionScaleTarget, reviewAdmission, reviewConversion } from '../../../shared/core/api/review.ts';
import type { RedisClusterSpec, RedisClusterStatus } from '../../../shared/core/api/v1beta1.ts';
import { toV1alpha1 } from '../../../shared/core/api/convert.ts';
import { aBeta, anAlpha } from './builders.ts';

const conversion = (request: unknown) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request });
const admission = (request: unknown) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
const resource = (version: string) => ({ group: 'cache.redis.io', version, resource: 'redisclusters' });

describe('api/review', () => {
  describe('ConversionReview', () => {
    it('converts every object and echoes the uid', () => {
      const reply = reviewConversion(
        conversion({
          uid: 'u1',
          desiredAPIVersion: 'cache.redis.io/v1beta1',
          objects: [anAlpha({ replicas: 3 }), anAlpha({ replicas: 4 })],
        }),
      );
      expect(reply.status).to.equal(200);
      const response = (
        reply.body as {
          response: { uid: string; result: { status: string }; convertedObjects: { spec: { masters: number } }[] };
        }
      ).response;
      expect(response.uid).to.equal('u1');
      expect(response.result).to.deep.equal({ status: 'Success' });
      expect(response.convertedObjects.map((o) => o.spec.masters)).to.deep.equal([3, 4]);
    });

    it('fails the whole review with the object and the reason when one object cannot convert', () => {
      const uneven = toV1alpha1(aBeta({ masters: 3, replicasPerMaster: 1 }));
      uneven.spec.replicas = 5;
      const reply = reviewConversion(
        conversion({
          uid: 'u2',
          desiredAPIVersion: 'cache.redis.io/v1beta1',
          objects: [anAlpha({ replicas: 3 }), uneven],
        }),
      );
      expect(reply.status).to.equal(200);
      expect((reply.body as { response: unknown }).response).to.deep.equal({
        uid: 'u2',
        convertedObjects: [],
        result: {
          status: 'Failure',
          message:
            'RedisCluster ns/c: spec.replicas: 5 Redis nodes cannot be split into masters with 1 replica each: use a multiple of 2 (such as 4 or 6), or change masters and replicasPerMaster through cache.redis.io/v1beta1',
        },
      });
    });

    const malformed: [string, unknown, string][] = [
      ['a body that is not an object', 42, 'the body must be a JSON ConversionReview object'],
      [
        'another kind',
        { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: {} },
        'expected apiVersion apiextensions.k8s.io/v1 and kind ConversionReview, got "admission.k8s.io/v1" "AdmissionReview"',
      ],
      [
        'no request',
        { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' },
        'ConversionReview.request must be an object',
      ],
      [
        'no uid',
        conversion({ desiredAPIVersion: 'cache.redis.io/v1beta1', objects: [] }),
        'request.uid must be a non-empty string',
      ],
      ['no desired version', conversion({ uid: 'u', objects: [] }), 'request.desiredAPIVersion must be a string'],
      [
        'objects not a list',
        conversion({ uid: 'u', desiredAPIVersion: 'cache.redis.io/v1beta1', objects: {} }),
        'request.objects must be an array',
      ],
    ];
    for (const [what, body, error] of malformed) {
      it(`answers 400 with a reason to ${what}`, () =>
        expect(reviewConversion(body)).to.deep.equal({ status: 400, body: { error } }));
    }
  });

  describe('AdmissionReview', () => {
    const answer = (request: unknown, current?: JsonObject) =>
      (
        reviewAdmission(admission(request), current).body as {
          response: { uid: string; allowed: boolean; status?: { message: string }; warnings?: string[] };
        }
      ).response;

    it('allows a valid v1beta1 create, with its warnings', () => {
      const response = answer({
        uid: 'a1',
        operation: 'CREATE',
        resource: resource('v1beta1'),
        object: aBeta({ replicasPerMaster: 0 }),
      });
      expect(response).to.deep.equal({
        uid: 'a1',
        allowed: true,
        warnings: ['spec.replicasPerMaster is 0: without replicas a failed master takes its slots offline'],
      });
    });

    it('checks a v1alpha1 update in v1beta1 terms: replicas must split into whole shards', () => {
      const old = toV1alpha1(aBeta({ masters: 3, replicasPerMaster: 1 }));
      const response = answer({
        uid: 'a2',
        operation: 'UPDATE',
        resource: resource('v1alpha1'),
        object: { ...old, spec: { ...old.spec, replicas: 7 } },
        oldObject: old,
      });
      expect(response.allowed).to.equal(false);
      expect(response.status?.message).to.equal(
        'spec.replicas: 7 Redis nodes cannot be split into masters with 1 replica each: use a multiple of 2 (such as 6 or 8), or change masters and replicasPerMaster through cache.redis.io/v1beta1',
      );
    });

    it('refuses a v1alpha1 scale-in of more than half the nodes', () => {
      const response = answer({
        uid: 'a3',
        operation: 'UPDATE',
        resource: resource('v1alpha1'),
        object: anAlpha({ replicas: 3 }),
        oldObject: anAlpha({ replicas: 10 }),
      });
      expect(response.status?.message).to.equal(
        'spec.replicas: scaling in from 10 to 3 Redis nodes removes 7 of 10 masters at once, but at most 5 (half) can go in one step because their slots move to the masters that stay: scale to 5 first, then to 3',
      );
      const old = toV1alpha1(aBeta({ masters: 7, replicasPerMaster: 1 }));
      const sharded = answer({
        uid: 'a3b',
        operation: 'UPDATE',
        resource: resource('v1alpha1'),
        object: { ...old, spec: { ...old.spec, replicas: 6 } },
        oldObject: old,
      });
      expect(sharded.status?.message).to.equal(
        'spec.replicas: scaling in from 14 to 6 Redis nodes removes 4 of 7 masters at once, but at most 3 (half) can go in one step because their slots move to the masters that stay: scale to 8 first, then to 6',
      );
    });

    describe('a scale subresource update, checked as the edit it amounts to against the stored RedisCluster', () => {
      const scale = (replicas: number) => ({
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'c', namespace: 'ns' },
        spec: { replicas },
      });
      const degraded = {
        conditions: [
          {
            type: 'Degraded',
            status: 'True' as const,
            reason: 'MasterDown',
            message: 'm',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      };
      // [what, version, stored spec, stored status, replicas of the Scale, refusal (undefined: allowed)]
      const table: [string, string, RedisClusterSpec, RedisClusterStatus | undefined, number, string | undefined][] = [
        [
          'more than half the masters',
          'v1beta1',
          { masters: 6 },
          undefined,
          2,
          'spec.masters: scaling in from 6 to 2 masters removes 4 at once, but at most 3 (half) can go in one step because their slots move to the masters that stay: scale to 3 first, then to 2',
        ],
        [
          'a second halving while the first one still migrates',
          'v1beta1',
          { masters: 4 },
          { operation: { type: 'ScaleIn', progress: 'migrating slots 100/8192' } },
          2,
          'spec.masters: cannot scale in while ScaleIn is in progress (migrating slots 100/8192): wait until it finishes',
        ],
        [
          'a scale-in while masters are down',
          'v1beta1',
          { masters: 6 },
          { readyMasters: 5 },
          5,
          'spec.masters: cannot scale in while only 5 of 6 masters are ready: the slots of the removed masters need healthy masters to move to',
        ],
        [
          'more than half the nodes, in v1alpha1 words',
          'v1alpha1',
          { masters: 6, replicasPerMaster: 1 },
          undefined,
          4,
          'spec.replicas: scaling in from 12 to 4 Redis nodes removes 4 of 6 masters at once, but at most 3 (half) can go in one step because their slots move to the masters that stay: scale to 6 first, then to 4',
        ],
        [
          'nodes that do not split into whole shards',
          'v1alpha1',
          { masters: 3, replicasPerMaster: 1 },
          undefined,
          7,
          'spec.replicas: 7 Redis nodes cannot be split into masters with 1 replica each: use a multiple of 2 (such as 6 or 8), or change masters and replicasPerMaster through cache.redis.io/v1beta1',
        ],
        ['half the masters of a healthy cluster', 'v1beta1', { masters: 6 }, { readyMasters: 6 }, 3, undefined],
        ['a scale-out while Degraded', 'v1beta1', { masters: 3 }, degraded, 4, undefined],
      ];
      for (const [what, version, spec, status, replicas, refusal] of table) {
        it(`${refusal ? 'refuses' : 'allows'} ${what} (${version})`, () => {
          const stored = aBeta(spec, status) as unknown as JsonObject;
          const scaled = answer(
            {
              uid: 's1',
              operation: 'UPDATE',
              resource: resource(version),
              subResource: 'scale',
              namespace: 'ns',
              name: 'c',
              object: scale(replicas),
              oldObject: scale(0),
            },
            stored,
          );
          const old = version === 'v1alpha1' ? (toV1alpha1(aBeta(spec, status)) as unknown as JsonObject) : stored;
          const field = version === 'v1alpha1' ? 'replicas' : 'masters';
          const edited = answer({
            uid: 's2',
            operation: 'UPDATE',
            resource: resource(version),
            object: { ...old, spec: { ...(old.spec as object), [field]: replicas } },
            oldObject: old,
          });
          expect(scaled.status?.message).to.equal(refusal);
          expect(scaled.status?.message).to.equal(edited.status?.message);
        });
      }

      it("checks the Scale's own counts when the RedisCluster could not be found", () => {
        const response = answer({
          uid: 's3',
          operation: 'UPDATE',
          resource: resource('v1beta1'),
          subResource: 'scale',
          namespace: 'ns',
          name: 'c',
          object: scale(2),
          oldObject: scale(6),
        });
        expect(response.status?.message).to.equal(
          'spec.masters: scaling in from 6 to 2 masters removes 4 at once, but at most 3 (half) can go in one step because their slots move to the masters that stay: scale to 3 first, then to 2',
        );
      });

      it('names the RedisCluster to read for a scale update only', () => {
        expect(
          admissionScaleTarget(
            admission({ uid: 'x', operation: 'UPDATE', subResource: 'scale', namespace: 'ns', name: 'c' }),
          ),
        ).to.deep.equal({ namespace: 'ns', name: 'c' });
        expect(admissionScaleTarget(admission({ uid: 'x', operation: 'UPDATE', namespace: 'ns', name: 'c' }))).to.equal(
          undefined,
        );
      });
    });

    it('allows deletes and other subresources without looking', () => {
      expect(answer({ uid: 'a7', operation: 'DELETE', resource: resource('v1beta1') }).allowed).to.equal(true);
      expect(
        answer({
          uid: 'a8',
          operation: 'UPDATE',
          resource: resource('v1beta1'),
          subResource: 'status',
          object: 1,
          oldObject: 2,
        }).allowed,
      ).to.equal(true);
    });

    it('answers an object it cannot read with a refusal that says why', () => {
      expect(
        answer({ uid: 'a9', operation: 'CREATE', resource: resource('v1beta1'), object: 'nope' }).status?.message,
      ).to.equal('the object must be a JSON object');
      expect(
        answer({
          uid: 'b1',
          operation: 'CREATE',
          resource: { group: 'apps', version: 'v1', resource: 'deployments' },
          object: {},
        }).status?.message,
      ).to.equal(
        'this webhook validates cache.redis.io redisclusters (v1alpha1, v1beta1), not {"group":"apps","version":"v1","resource":"deployments"}',
      );
    });

    const malformed: [string, unknown, string][] = [
      ['a body that is not an object', [], 'the body must be a JSON AdmissionReview object'],
      [
        'a ConversionReview',
        conversion({ uid: 'x' }),
        'expected apiVersion admission.k8s.io/v1 and kind AdmissionReview, got "apiextensions.k8s.io/v1" "ConversionReview"',
      ],
      ['no uid', admission({ operation: 'CREATE' }), 'request.uid must be a non-empty string'],
    ];
    for (const [what, body, error] of malformed) {
      it(`answers 400 with a reason to ${what}`, () =>
        expect(reviewAdmission(body)).to.deep.equal({ status: 400, body: { error } }));
    }
  });
});

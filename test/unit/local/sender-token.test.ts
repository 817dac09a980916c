import { expect } from 'chai';
import { namespaceInFlux } from '../../../infra/local/sender-token.ts';

// Shaped as client-node's ApiException: the HTTP code, and the Status object as its body text.
const apiError = (code: number, status: object) => ({
  code,
  body: JSON.stringify({ kind: 'Status', code, ...status }),
});

describe('infra/local sender-token: a namespace being deleted under the ServiceAccount', () => {
  const cases: [string, unknown, boolean][] = [
    [
      'refused: the namespace is terminating',
      apiError(403, {
        reason: 'Forbidden',
        message:
          'serviceaccounts "x" is forbidden: unable to create new content in namespace knredis-system because it is being terminated',
        details: { causes: [{ reason: 'NamespaceTerminating' }] },
      }),
      true,
    ],
    [
      'the namespace gone between the two calls',
      apiError(404, {
        reason: 'NotFound',
        message: 'namespaces "knredis-system" not found',
        details: { name: 'knredis-system', kind: 'namespaces' },
      }),
      true,
    ],
    [
      'another namespace not found',
      apiError(404, { reason: 'NotFound', details: { name: 'other', kind: 'namespaces' } }),
      false,
    ],
    [
      'a ServiceAccount not found',
      apiError(404, { details: { name: 'knredis-system', kind: 'serviceaccounts' } }),
      false,
    ],
    ['forbidden', apiError(403, { reason: 'Forbidden', message: 'no' }), false],
    ['no connection', new Error('connect ECONNREFUSED'), false],
  ];
  for (const [what, error, retry] of cases)
    it(`${what}: ${retry ? 'retried' : 'thrown'}`, () => {
      expect(namespaceInFlux(error, 'knredis-system')).to.equal(retry);
    });
});

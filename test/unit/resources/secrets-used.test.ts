import { expect } from 'chai';
import { secretsUsedBy, type SecretUser } from '../../../shared/core/resources/secrets-used.ts';

describe('secretsUsedBy', () => {
  const cases: [string, SecretUser, string[]][] = [
    ['generated password', { metadata: { name: 'c' } }, ['c-auth', 'c-auth-active', 'c-monitor']],
    [
      "the user's password and certificate",
      { metadata: { name: 'c' }, spec: { auth: { secretRef: { name: 'pw' } }, tls: { secretRef: { name: 'cert' } } } },
      ['pw', 'c-auth-active', 'c-monitor', 'cert'],
    ],
    ['no name yet', { spec: { auth: { secretRef: { name: 'pw' } } } }, []],
  ];
  for (const [what, cluster, used] of cases)
    it(what, () => {
      expect(secretsUsedBy(cluster)).to.deep.equal(used);
    });
});

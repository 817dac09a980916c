import { expect } from 'chai';
import { closest, editDistance } from '../../../shared/core/api/closest.ts';
import { CONFIG_TABLES, configTableFor } from '../../../shared/core/api/redis-config/index.ts';
import { FORBIDDEN_CONFIG } from '../../../shared/core/api/config-keys.ts';
import { RESTART_ONLY } from '../../../shared/core/resources/redis-conf.ts';

describe('api/redis-config', () => {
  describe('configTableFor', () => {
    const table: [string, string | undefined, boolean | undefined][] = [
      ['7.0', '7.0', true],
      // no table of its own: the nearest older one stands in
      ['7.2', '7.0', false],
      ['7.4', '7.0', false],
      ['10.0', '7.0', false],
      // nothing older to stand in
      ['6.2', undefined, undefined],
    ];
    for (const [version, minor, exact] of table) {
      it(`checks Redis ${version} against ${minor ?? 'no'} table${exact === false ? ' (not its own)' : ''}`, () => {
        const chosen = configTableFor(version);
        expect(chosen?.minor).to.equal(minor);
        expect(chosen?.exact).to.equal(exact);
      });
    }
  });

  describe('closest', () => {
    const keys = ['maxmemory', 'maxmemory-policy', 'maxmemory-samples', 'appendonly', 'hz'];
    const table: [string, string | undefined][] = [
      ['maxmemory-polcy', 'maxmemory-policy'],
      ['maxmemroy', 'maxmemory'],
      ['apendonly', 'appendonly'],
      ['hx', 'hz'],
      ['turbo-mode', undefined],
    ];
    for (const [word, want] of table)
      it(`suggests ${want} for ${word}`, () => expect(closest(word, keys)).to.equal(want));

    it('counts insertions, deletions and substitutions', () => {
      expect([editDistance('', 'abc'), editDistance('abc', 'abc'), editDistance('kitten', 'sitting')]).to.deep.equal([
        3, 0, 3,
      ]);
    });
  });

  it('names in the forbidden groups settings every table has, or no CONFIG key at all', () => {
    const notSettings = new Set(['include', 'rename-command', 'user', 'loadmodule']);
    for (const table of Object.values(CONFIG_TABLES)) {
      const unknown = FORBIDDEN_CONFIG.flatMap((g) => g.keys).filter((k) => !(k in table.keys) && !notSettings.has(k));
      expect(unknown, `Redis ${table.version}`).to.deep.equal([]);
    }
  });

  it('never applies live a setting a table says Redis reads only at start-up', () => {
    for (const table of Object.values(CONFIG_TABLES)) {
      expect(Object.keys(table.keys).filter((k) => table.keys[k]!.restartOnly && !RESTART_ONLY.has(k))).to.deep.equal(
        [],
      );
    }
  });
});

// The table of redis.conf settings the webhook checks spec.config against is generated from a
// real redis-server: the committed file must be what the installed one gives now.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { generateConfigTable, minorOf, renderTable, tableFile } from '../../../infra/redis/generate-config-keys.ts';
import { CONFIG_TABLES } from '../../../shared/core/api/redis-config/index.ts';
import { requireCommand } from '../../support/prerequisites.ts';

describe('infra/redis config keys', function () {
  this.timeout(300_000);

  it('is committed as the installed redis-server gives it (run npx tsx infra/redis/generate-config-keys.ts)', async () => {
    requireCommand('redis-server');
    const table = await generateConfigTable();
    expect(readFileSync(new URL(`../../../${tableFile(table.version)}`, import.meta.url), 'utf8')).to.equal(
      renderTable(table),
    );
    expect(CONFIG_TABLES[minorOf(table.version)]?.version).to.equal(table.version);
    // What the probes learn, on keys whose kind every Redis 7 has
    expect(table.keys).to.deep.include({
      appendonly: { kind: 'boolean' },
      maxmemory: { kind: 'memory' },
      loglevel: { kind: 'enum', values: ['debug', 'verbose', 'notice', 'warning'] },
      databases: { kind: 'integer', min: '1', max: '2147483647', restartOnly: true },
    });
  });
});

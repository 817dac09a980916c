import { expect } from 'chai';
import { applyLiveConfig } from '../../../functions/reconcile/live-config.ts';
import { forbiddenConfigReasons } from '../../../shared/core/api/config-keys.ts';
import { RESTART_ONLY } from '../../../shared/core/resources/redis-conf.ts';
import { command, NodePool } from '../../../shared/io/redis/connection.ts';
import { startRedis, type RedisServer } from '../../support/redis-server.ts';

describe('live-config (on a real redis-server)', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  let pool: NodePool;
  const node = () => ({ ip: redis.host, port: redis.port });

  before(async () => {
    redis = await startRedis();
    pool = new NodePool();
  });
  after(async () => {
    await pool?.close();
    await redis?.stop();
  });

  it('sets what differs once, then finds every value converged, however the spec spells it', async () => {
    const wanted = {
      maxmemory: '100mb',
      'maxmemory-policy': 'ALLKEYS-LRU',
      save: '""',
      'notify-keyspace-events': 'KEA',
      'client-output-buffer-limit': 'normal 0 0 0 replica 512mb 128mb 60 pubsub 32mb 8mb 60',
      appendonly: 'no',
    };
    expect(await applyLiveConfig(pool, [node()], wanted)).to.deep.equal([
      'client-output-buffer-limit',
      'maxmemory',
      'maxmemory-policy',
      'notify-keyspace-events',
    ]);
    expect(await applyLiveConfig(pool, [node()], wanted)).to.deep.equal([]);
    expect(await command<string[]>(pool, node(), 'CONFIG GET', ['CONFIG', 'GET', 'maxmemory'])).to.deep.equal([
      'maxmemory',
      '104857600',
    ]);
  });

  it('converges on a client-output-buffer-limit that names one class only', async () => {
    const wanted = { 'client-output-buffer-limit': 'pubsub 64mb 16mb 90' };
    expect(await applyLiveConfig(pool, [node()], wanted)).to.deep.equal(['client-output-buffer-limit']);
    expect(await applyLiveConfig(pool, [node()], wanted)).to.deep.equal([]);
  });

  it('empties save with "" as redis.conf spells it', async () => {
    await command(pool, node(), 'CONFIG SET', ['CONFIG', 'SET', 'save', '3600 1']);
    expect(await applyLiveConfig(pool, [node()], { save: '""' })).to.deep.equal(['save']);
    expect(await command<string[]>(pool, node(), 'CONFIG GET', ['CONFIG', 'GET', 'save'])).to.deep.equal(['save', '']);
  });

  it('knows as restart-only every setting this Redis refuses to change live (and a spec may hold)', async () => {
    const all = await command<string[]>(pool, node(), 'CONFIG GET', ['CONFIG', 'GET', '*']);
    const refused: string[] = [];
    for (let i = 0; i + 1 < all.length; i += 2) {
      const [key, value] = [String(all[i]), String(all[i + 1])];
      if (forbiddenConfigReasons(key).length > 0) continue;
      try {
        await command(pool, node(), 'CONFIG SET', ['CONFIG', 'SET', key, value]);
      } catch {
        refused.push(key);
      }
    }
    expect(refused.length).to.be.greaterThan(0);
    expect(refused.filter((key) => !RESTART_ONLY.has(key))).to.deep.equal([]);
  });
});

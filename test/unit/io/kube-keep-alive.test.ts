// One keep-alive agent per KubeConfig, through client-node's own request paths: the typed
// APIs' applySecurityAuthentication and the watches' applyToHTTPSOptions.
import { expect } from 'chai';
import type { Agent } from 'node:http';
import type { RequestOptions } from 'node:https';
import { HttpMethod, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { withKeepAlive } from '../../../shared/io/kube/keep-alive.ts';

const kubeConfig = (certData: string) => {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', caData: Buffer.from('ca').toString('base64') }],
    users: [{ name: 'u', certData, keyData: Buffer.from('key').toString('base64') }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
};

/** Node's Agent has keepAlive (not in @types/node). */
type KeepAliveAgent = Agent & { keepAlive: boolean };

async function typedApiAgent(kc: KubeConfig): Promise<KeepAliveAgent> {
  const context = new RequestContext('https://127.0.0.1:6443/api/v1/namespaces', HttpMethod.GET);
  await kc.applySecurityAuthentication(context);
  return context.getAgent() as KeepAliveAgent;
}

async function watchAgent(kc: KubeConfig): Promise<Agent> {
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  return opts.agent as Agent;
}

describe('withKeepAlive', () => {
  it('gives every request of a KubeConfig one keep-alive agent, typed APIs and watches alike', async () => {
    const kc = withKeepAlive(kubeConfig(Buffer.from('cert').toString('base64')));
    const first = await typedApiAgent(kc);
    expect(first.keepAlive).to.equal(true);
    // Idle connections close before the API server's own idle timeout (90 s) closes them.
    expect((first as unknown as { options: { timeout: number } }).options.timeout).to.be.below(90_000);
    expect(await typedApiAgent(kc)).to.equal(first);
    expect(await typedApiAgent(kc)).to.equal(first);
    // A watch's request passes more options, all unset here: the same TLS settings, the same agent.
    expect(await watchAgent(kc)).to.equal(first);
  });

  it('makes a new agent when the TLS settings change (a renewed client certificate)', async () => {
    const kc = withKeepAlive(kubeConfig(Buffer.from('cert').toString('base64')));
    const before = await typedApiAgent(kc);
    kc.users[0] = { ...kc.users[0]!, certData: Buffer.from('renewed cert').toString('base64') };
    const after = await typedApiAgent(kc);
    expect(after).to.not.equal(before);
    expect(await typedApiAgent(kc)).to.equal(after);
    // Kept for a while (a watch made with the old settings may still run), then retired: it
    // keeps no connection once its requests end.
    expect(before.keepAlive).to.equal(true);
    for (const n of [2, 3, 4]) {
      kc.users[0] = { ...kc.users[0]!, certData: Buffer.from(`cert ${n}`).toString('base64') };
      await typedApiAgent(kc);
    }
    expect(before.keepAlive).to.equal(false);
    expect(after.keepAlive).to.equal(true);
  });

  it('is not what client-node does alone: without it, an agent per request', async () => {
    const kc = kubeConfig(Buffer.from('cert').toString('base64'));
    expect(await typedApiAgent(kc)).to.not.equal(await typedApiAgent(kc));
  });
});

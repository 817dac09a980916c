// The kubelet's test API on 127.0.0.1: crash, freeze and thaw a pod's processes; fail a node,
// silence it (it stops reporting, its pods keep serving) and restore it; cut the network
// between groups of pods and heal it; list pods with their processes. JSON in and out (see
// control-client.ts).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../../shared/io/log.ts';
import type { PodInfo } from './pod-manager.ts';

export interface ControlTarget {
  pods(): PodInfo[];
  nodes(): { name: string; address: string; failed: boolean }[];
  /** Signals the pod's containers (or one of them); false when the pod is not known here. */
  signalPod(namespace: string, name: string, signal: NodeJS.Signals, container?: string): boolean;
  failNode(name: string): Promise<boolean>;
  restoreNode(name: string): Promise<boolean>;
  silenceNode(name: string): Promise<boolean>;
  /** Groups of pod IPs, `namespace/name` of pods, or other loopback addresses (127.0.0.1). */
  partition(groups: string[][]): Promise<number>;
  heal(): Promise<number>;
}

const nodeActions: Record<string, (t: ControlTarget, name: string) => Promise<boolean>> = {
  fail: (t, name) => t.failNode(name),
  'stop-reporting': (t, name) => t.silenceNode(name),
  restore: (t, name) => t.restoreNode(name),
};

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.once('end', () => resolve(text || '{}'));
    req.once('error', reject);
  });
}

const podActions: Record<string, NodeJS.Signals> = { crash: 'SIGKILL', freeze: 'SIGSTOP', thaw: 'SIGCONT' };

export async function startControlServer(
  target: ControlTarget,
  port: number,
  log: Logger,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const reply = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'http://control');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const route = `${req.method} /${parts[0] ?? ''}`;
    void (async () => {
      if (route === 'GET /healthz') return reply(200, { ok: true });
      if (route === 'GET /pods' && parts.length === 1) return reply(200, target.pods());
      if (route === 'GET /nodes' && parts.length === 1) return reply(200, target.nodes());
      if (route === 'POST /pods' && parts.length === 4) {
        const [, namespace = '', name = '', action = ''] = parts;
        const signal = podActions[action];
        if (!signal) return reply(404, { error: `unknown pod action "${action}" (crash, freeze, thaw)` });
        const container = url.searchParams.get('container') ?? undefined;
        const found = target.signalPod(namespace, name, signal, container);
        log.info({ pod: `${namespace}/${name}`, action, found }, 'control: pod action');
        return found
          ? reply(200, { ok: true })
          : reply(404, { error: `pod ${namespace}/${name} is not running on this kubelet` });
      }
      if (route === 'POST /nodes' && parts.length === 3) {
        const [, name = '', action = ''] = parts;
        const act = nodeActions[action];
        if (!act)
          return reply(404, { error: `unknown node action "${action}" (${Object.keys(nodeActions).join(', ')})` });
        const done = await act(target, name);
        log.info({ node: name, action, found: done }, 'control: node action');
        return done ? reply(200, { ok: true }) : reply(404, { error: `node ${name} is not served by this kubelet` });
      }
      if (route === 'POST /partition' && parts.length === 1) {
        const { groups } = JSON.parse(await bodyOf(req)) as { groups?: unknown };
        if (
          !Array.isArray(groups) ||
          groups.length < 2 ||
          !groups.every((g) => Array.isArray(g) && g.every((m) => typeof m === 'string'))
        ) {
          return reply(400, {
            error: 'a partition needs {"groups": [[...], [...]]}: at least two lists of pod IPs or namespace/name',
          });
        }
        const rules = await target.partition(groups as string[][]);
        log.info({ groups, rules }, 'control: partition');
        return reply(200, { rules });
      }
      if (route === 'POST /heal' && parts.length === 1) {
        const rules = await target.heal();
        log.info({ rules }, 'control: heal');
        return reply(200, { rules });
      }
      reply(404, { error: `no route ${req.method} ${url.pathname}` });
    })().catch((err: unknown) => reply(500, { error: err instanceof Error ? err.message : String(err) }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

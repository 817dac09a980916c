// One keep-alive connection pool per KubeConfig. client-node (1.x) builds a new https.Agent for
// every request (KubeConfig.createAgent, from applySecurityAuthentication for the typed APIs and
// from applyToHTTPSOptions for watches), so every API call opened its own TLS connection: a
// handshake on both ends and the CA parsed again, per request (`npm run bench -- kube-requests`).
// Here an agent is made once per set of TLS settings and reused while they stay the same. A
// client certificate an exec plugin renews makes a new one; the bearer token is a header, not
// the agent's. client-node has no setting for this; like withUserAgent, it wraps the method.
import type { Agent } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';

/** The agent options client-node passes (https.AgentOptions and what it copies into them). */
type AgentOptions = Record<string, unknown>;
type CreateAgent = (cluster: unknown, options: AgentOptions) => Agent;

/**
 * An idle connection is closed after this long, before the API server closes it (its HTTP
 * server's IdleTimeout is 90 s, k8s.io/apiserver secure_serving.go): a request never goes out
 * on a connection the server is closing. Node's Agent applies it to idle sockets only; a
 * request or watch in flight is not cut by it.
 */
const IDLE_MS = 30_000;

/** Sets of TLS settings kept at once: a watch made with earlier ones may still run. Older ones retire. */
const KEPT = 4;

const sameValue = (a: unknown, b: unknown): boolean =>
  Buffer.isBuffer(a) && Buffer.isBuffer(b)
    ? a.equals(b)
    : Array.isArray(a) && Array.isArray(b)
      ? a.length === b.length && a.every((x, i) => sameValue(x, b[i]))
      : a === b;

// Not util.isDeepStrictEqual: a watch's options carry keys set to undefined that a typed call's
// lack, and they are the same settings.
function sameOptions(a: AgentOptions, b: AgentOptions): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => sameValue(a[k], b[k]));
}

/** Stops an agent keeping connections: its idle ones close now, the busy ones when their request ends. */
function retire(agent: Agent): void {
  // Node's Agent reads keepAlive when a socket is freed (not in @types/node).
  (agent as Agent & { keepAlive: boolean }).keepAlive = false;
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

export function withKeepAlive(kc: KubeConfig): KubeConfig {
  const patched = kc as unknown as { createAgent: CreateAgent };
  const base = patched.createAgent.bind(kc);
  const agents: { options: AgentOptions; agent: Agent }[] = [];
  patched.createAgent = (cluster, options) => {
    const kept = agents.find((a) => sameOptions(a.options, options));
    if (kept) return kept.agent;
    // A copy: client-node fills the object it passes, and later calls compare with this one.
    const made = {
      options: { ...options },
      agent: base(cluster, { ...options, keepAlive: true, timeout: options.timeout ?? IDLE_MS }),
    };
    agents.unshift(made);
    for (const old of agents.splice(KEPT)) retire(old.agent);
    return made.agent;
  };
  return kc;
}

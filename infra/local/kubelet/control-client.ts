// Typed client of the local kubelet's control API, for tests:
//   const kubelet = new KubeletControl(url);
//   await kubelet.crashPod('default', 'redis-0');   // SIGKILL: the container restarts
//   await kubelet.freezePod(ns, name); await kubelet.thawPod(ns, name);   // SIGSTOP / SIGCONT
//   await kubelet.failNode('local-node-2'); await kubelet.restoreNode('local-node-2');
//   await kubelet.stopReporting('local-node-2');   // pods keep serving, the node goes NotReady
//   await kubelet.partition([['127.0.0.1', 'ns/redis-0'], ['ns/redis-1', 'ns/redis-2']]); await kubelet.heal();
import { request } from 'node:http';

export interface KubeletPod {
  namespace: string;
  name: string;
  uid: string;
  node: string;
  podIP?: string;
  containers: { name: string; pid?: number; running: boolean; restartCount: number }[];
}

export interface KubeletNode {
  name: string;
  address: string;
  failed: boolean;
}

export class KubeletControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'KubeletControlError';
  }
}

export class KubeletControl {
  constructor(readonly url: string) {}

  /** SIGKILL the pod's processes (or one container's); they restart per restartPolicy. */
  crashPod(namespace: string, name: string, container?: string): Promise<void> {
    return this.podAction(namespace, name, 'crash', container);
  }

  /** SIGSTOP the pod's processes: they hold their sockets but answer nothing. */
  freezePod(namespace: string, name: string, container?: string): Promise<void> {
    return this.podAction(namespace, name, 'freeze', container);
  }

  /** SIGCONT what freezePod stopped. */
  thawPod(namespace: string, name: string, container?: string): Promise<void> {
    return this.podAction(namespace, name, 'thaw', container);
  }

  /** Stop heart-beating the node and kill its pods' processes; its pods are ignored until restored. */
  async failNode(name: string): Promise<void> {
    await this.call('POST', `/nodes/${encodeURIComponent(name)}/fail`);
  }

  /** Heart-beat the node again; its remaining pods start again. */
  async restoreNode(name: string): Promise<void> {
    await this.call('POST', `/nodes/${encodeURIComponent(name)}/restore`);
  }

  /** The kubelet stops reporting for the node (no lease, no node or pod status, deletions not
   * seen) while its pods keep running and serving: a kubelet cut off from the API server.
   * restoreNode ends it. */
  async stopReporting(name: string): Promise<void> {
    await this.call('POST', `/nodes/${encodeURIComponent(name)}/stop-reporting`);
  }

  /** Cuts all traffic between every pair of members of different groups (pod IPs, pods as
   * `namespace/name`, 127.0.0.1 for the host's own clients), until heal(). Resolves the rule count. */
  async partition(groups: string[][]): Promise<number> {
    return ((await this.call('POST', '/partition', { groups })) as { rules: number }).rules;
  }

  /** Removes every partition rule of this environment. */
  async heal(): Promise<number> {
    return ((await this.call('POST', '/heal')) as { rules: number }).rules;
  }

  /** Pods this kubelet runs, with their process ids. */
  pods(): Promise<KubeletPod[]> {
    return this.call('GET', '/pods') as Promise<KubeletPod[]>;
  }

  nodes(): Promise<KubeletNode[]> {
    return this.call('GET', '/nodes') as Promise<KubeletNode[]>;
  }

  private async podAction(namespace: string, name: string, action: string, container?: string): Promise<void> {
    const query = container ? `?container=${encodeURIComponent(container)}` : '';
    await this.call('POST', `/pods/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${action}${query}`);
  }

  private call(method: string, path: string, body?: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const headers = body === undefined ? {} : { 'content-type': 'application/json' };
      const req = request(new URL(path, this.url), { method, timeout: 30_000, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          const body = text ? (JSON.parse(text) as { error?: string }) : {};
          if ((res.statusCode ?? 500) >= 400)
            reject(new KubeletControlError(res.statusCode ?? 500, body.error ?? `HTTP ${res.statusCode}`));
          else resolve(body);
        });
      });
      req.once('timeout', () => req.destroy(new Error(`kubelet control ${method} ${path} timed out`)));
      req.once('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }
}

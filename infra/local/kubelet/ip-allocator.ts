// Pod addresses handed out by this kubelet, remembered in <state>/pod-addresses.json so a
// restarted kubelet gives a pod the same address and never gives one to two live pods.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nextFreeAddress } from './ip-allocation.ts';

interface Saved {
  cursor: number;
  byUid: Record<string, string>;
}

export class IpAllocator {
  private readonly file: string;
  private state: Saved;

  constructor(
    private readonly prefix: string,
    stateDir: string,
  ) {
    this.file = join(stateDir, 'pod-addresses.json');
    try {
      this.state = JSON.parse(readFileSync(this.file, 'utf8')) as Saved;
    } catch {
      this.state = { cursor: 0, byUid: {} };
    }
  }

  allocate(uid: string): string {
    const known = this.state.byUid[uid];
    if (known) return known;
    const { ip, cursor } = nextFreeAddress(this.prefix, new Set(Object.values(this.state.byUid)), this.state.cursor);
    this.state = { cursor, byUid: { ...this.state.byUid, [uid]: ip } };
    this.save();
    return ip;
  }

  release(uid: string): void {
    if (!(uid in this.state.byUid)) return;
    const byUid = { ...this.state.byUid };
    delete byUid[uid];
    this.state = { ...this.state, byUid };
    this.save();
  }

  /** Forgets addresses of pods that no longer exist (after a restart of the kubelet). */
  retain(liveUids: ReadonlySet<string>): void {
    const byUid = Object.fromEntries(Object.entries(this.state.byUid).filter(([uid]) => liveUids.has(uid)));
    this.state = { ...this.state, byUid };
    this.save();
  }

  private save(): void {
    writeFileSync(`${this.file}.tmp`, JSON.stringify(this.state));
    renameSync(`${this.file}.tmp`, this.file);
  }
}

// knredis' own Lua scripts (files in ./lua, named name-<numKeys>.lua), loaded once and
// defined as ioredis commands.
import { readFileSync } from 'node:fs';
import type { QueueClient } from './connection.ts';

const lua = (file: string) => readFileSync(new URL(`./lua/${file}`, import.meta.url), 'utf8');

const scripts = {
  knDefer: { file: 'defer-2.lua', numberOfKeys: 2 },
} as const;

export interface QueueScripts {
  knDefer(dedupNextKey: string, jobKey: string, delayMs: number, name: string, data: string): Promise<number>;
}

/** What defer-2.lua did: its return codes, named in this one place. */
export type DeferResult = 'stored' | 'change-pending' | 'job-gone';

export function deferResult(code: number): DeferResult {
  switch (code) {
    case 1:
      return 'stored';
    case 0:
      return 'change-pending';
    case -1:
      return 'job-gone';
    default:
      throw new Error(`defer-2.lua returned an unknown code ${code}`);
  }
}

const sources = new Map<string, string>();

export function defineScripts(client: QueueClient): QueueScripts {
  for (const [command, { file, numberOfKeys }] of Object.entries(scripts)) {
    if (!sources.has(file)) sources.set(file, lua(file));
    if (!(command in client)) client.defineCommand(command, { numberOfKeys, lua: sources.get(file) ?? '' });
  }
  return client as unknown as QueueScripts;
}
